/** Percentiles and mean of a series of timings in milliseconds, formatted for a bench line. */
export function summarize(timings: readonly number[]): { p50: number; p99: number; mean: number; line: string } {
  const sorted = [...timings].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const p50 = at(0.5);
  const p99 = at(0.99);
  return { p50, p99, mean, line: `p50 ${p50.toFixed(1)} ms  p99 ${p99.toFixed(1)} ms  mean ${mean.toFixed(1)} ms` };
}
