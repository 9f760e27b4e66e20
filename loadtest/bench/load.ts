import { latencies, type Figures } from './stats.ts';

/** Milliseconds one call takes, measured around the call only. */
export async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** How many rounds a large scenario runs: `warmup` dropped, then `rounds`, cut short by `budgetMs`. */
export interface Rounds {
  rounds: number;
  warmup: number;
  /** Wall time (setup included) after which no further round starts, once MIN_ROUNDS were measured. */
  budgetMs?: number;
}

const MIN_ROUNDS = 3;

/**
 * Rounds one after another: latency without queueing. Each round returns the milliseconds it wants
 * counted (its untimed setup stays out), the first `warmup` rounds are dropped (JIT, pools), and
 * opsPerSec is rounds per second of counted time: 1000 × rounds / Σ timings.
 */
export async function serial(shape: Rounds, round: (index: number) => Promise<number>): Promise<Figures & { rounds: number }> {
  const timings: number[] = [];
  const until = performance.now() + (shape.budgetMs ?? Infinity);
  for (let i = 0; i < shape.warmup + shape.rounds; i++) {
    if (timings.length >= MIN_ROUNDS && performance.now() > until) break;
    const elapsed = await round(i);
    if (i >= shape.warmup) timings.push(elapsed);
  }
  return { ...latencies(timings), opsPerSec: (1000 * timings.length) / timings.reduce((a, b) => a + b, 0), rounds: timings.length };
}

export interface ClosedLoopOptions {
  inFlight: number;
  durationMs: number;
  warmupMs: number;
}

/**
 * Throughput: `inFlight` workers each start their next call as soon as the last one answers, for
 * warmupMs (not counted) and then durationMs. opsPerSec counts the calls started in the measured
 * window over the time until the last of them answered; the percentiles here include queueing.
 */
export async function closedLoop(call: (worker: number) => Promise<void>, options: ClosedLoopOptions): Promise<Figures> {
  const measureFrom = performance.now() + options.warmupMs;
  const until = measureFrom + options.durationMs;
  const timings: number[] = [];
  let lastAnswer = measureFrom;
  let failed = false;
  const worker = async (index: number): Promise<void> => {
    while (!failed && performance.now() < until) {
      const started = performance.now();
      try {
        await call(index);
      } catch (error) {
        failed = true;
        throw error;
      }
      const answered = performance.now();
      if (started >= measureFrom) {
        timings.push(answered - started);
        lastAnswer = answered;
      }
    }
  };
  await Promise.all(Array.from({ length: options.inFlight }, (_, i) => worker(i)));
  if (timings.length === 0) throw new Error('no call completed in the measured window');
  return { ...latencies(timings), opsPerSec: (1000 * timings.length) / (lastAnswer - measureFrom) };
}

/** How a small call is measured: `samples` one at a time after `warmup` (cut short by `budgetMs`), then a closed loop. */
export interface SmallCallShape {
  samples: number;
  warmup: number;
  budgetMs?: number;
  loop: ClosedLoopOptions;
}

/**
 * A small call's figures: p50 and p99 from calls one at a time (latency without queueing), opsPerSec
 * from the closed loop of the same call (throughput). Worker 0 makes the serial calls.
 */
export async function latencyAndThroughput(call: (worker: number) => Promise<void>, shape: SmallCallShape): Promise<Figures> {
  const { p50Ms, p99Ms } = await serial({ rounds: shape.samples, warmup: shape.warmup, budgetMs: shape.budgetMs }, () => timed(() => call(0)));
  const { opsPerSec } = await closedLoop(call, shape.loop);
  return { p50Ms, p99Ms, opsPerSec };
}

/**
 * Throughput of two calls compared on a shared machine: closed loops of each in turn, `windows`
 * times, so drift in the background load hits both alike. Returns each one's mean ops/s.
 */
export async function alternatingThroughput(
  first: (worker: number) => Promise<void>,
  second: (worker: number) => Promise<void>,
  loop: ClosedLoopOptions,
  windows: number,
): Promise<[number, number]> {
  const window = { ...loop, durationMs: loop.durationMs / windows, warmupMs: Math.min(loop.warmupMs, 250) };
  let firstOps = 0;
  let secondOps = 0;
  for (let i = 0; i < windows; i++) {
    firstOps += (await closedLoop(first, window)).opsPerSec;
    secondOps += (await closedLoop(second, window)).opsPerSec;
  }
  return [firstOps / windows, secondOps / windows];
}
