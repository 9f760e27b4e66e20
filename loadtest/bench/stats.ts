/** What every baseline and scenario reports: latency percentiles (ms) and throughput (operations/s). */
export interface Figures {
  p50Ms: number;
  p99Ms: number;
  opsPerSec: number;
}

/**
 * Nearest-rank percentile (q in 0..1) of timings in milliseconds: the smallest sample with at least
 * q of the samples at or below it, so p50 and p99 are always observed values, never interpolations.
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function latencies(timings: readonly number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...timings].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}
