import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * From this many files worker threads share the stats: below it the main thread is done before a
 * worker would have started.
 */
const SHARED_FROM = 16_384;
/** Worker threads beside the main one: one per other core, up to this many (each takes its own start-up, which a fourth share would not repay). */
const MAX_WORKERS = 3;

/** Sizes and modification times of files: `size(i)` is -1 for a file gone since it was listed. */
export interface FileStats {
  size(index: number): number;
  mtimeMs(index: number): number;
}

/**
 * Stats every path, the main thread and worker threads (one per other core) taking slices of them
 * in turn: a status of a large workspace is mostly its stat calls, each a system call that one
 * thread makes one after another while the machine's other cores idle. A stat that fails for
 * another reason than a missing file throws here, as `statSync` would.
 */
export async function statFiles(paths: readonly string[], sharedFrom = SHARED_FROM): Promise<FileStats> {
  const out = new Float64Array(new SharedArrayBuffer(paths.length * 2 * Float64Array.BYTES_PER_ELEMENT)).fill(Number.NaN);
  // [0]: the next path not claimed; [1]: how many are stored.
  const progress = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const workers: StatWorker[] = [];
  if (paths.length >= sharedFrom) {
    const joined = paths.join('\0');
    for (let n = Math.min(MAX_WORKERS, availableParallelism() - 1); n > 0; n -= 1) {
      const worker = startWorker(joined, out, progress);
      if (worker) workers.push(worker);
    }
  }
  try {
    statShare(paths, out, progress, statSync);
    await slicesStored(progress, paths.length, workers);
  } finally {
    for (const worker of workers) void worker.thread.terminate();
  }
  // What a worker claimed and did not store (a stat failed there) is stated again here, where the
  // failure throws as it would have.
  const left: number[] = [];
  for (let i = 0; i < paths.length; i++) if (Number.isNaN(out[2 * i])) left.push(i);
  if (left.length > 0) {
    const again = await statFiles(
      left.map((i) => paths[i]),
      Number.POSITIVE_INFINITY,
    );
    for (const [n, i] of left.entries()) [out[2 * i], out[2 * i + 1]] = [again.size(n), again.mtimeMs(n)];
  }
  return { size: (i) => out[2 * i], mtimeMs: (i) => out[2 * i + 1] };
}

/**
 * Waits until every path is stored, or every worker has stopped: a worker still starting when the
 * rest is done is not waited for, it finds nothing left to claim.
 */
async function slicesStored(progress: Int32Array, count: number, workers: readonly StatWorker[]): Promise<void> {
  const stopped = Promise.all(workers.map((worker) => worker.finished)).then(() => true);
  for (let stored = Atomics.load(progress, 1); stored < count; stored = Atomics.load(progress, 1)) {
    const change = Atomics.waitAsync(progress, 1, stored);
    if (change.async && (await Promise.race([change.value.then(() => false), stopped]))) return;
  }
}

/**
 * Stats the paths not claimed yet, a slice at a time, into `out`, and wakes whoever waits for them
 * (slicesStored). The worker runs this function's own source, so it names nothing from outside but
 * its parameters.
 */
function statShare(paths: readonly string[], out: Float64Array, progress: Int32Array, stat: typeof statSync): void {
  const slice = 256;
  for (let start = Atomics.add(progress, 0, slice); start < paths.length; start = Atomics.add(progress, 0, slice)) {
    const end = Math.min(paths.length, start + slice);
    for (let i = start; i < end; i++) {
      const info = stat(paths[i], { throwIfNoEntry: false });
      out[2 * i] = info ? info.size : -1;
      out[2 * i + 1] = info ? info.mtimeMs : 0;
    }
    Atomics.add(progress, 1, end - start);
    Atomics.notify(progress, 1);
  }
}

// A failing stat ends the worker's share; the paths it claimed and left are stated by the main thread.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { statSync } = require('node:fs');
parentPort.once('message', ({ paths, out, progress }) => {
  try {
    (${statShare.toString()})(paths.split('\\0'), new Float64Array(out), new Int32Array(progress), statSync);
  } catch {}
  parentPort.postMessage('done');
});`;

interface StatWorker {
  thread: Worker;
  /** Settles when the worker has no more to claim, or has failed. */
  finished: Promise<void>;
}

/** A worker taking its share of `paths` (joined by NUL, which no path holds). */
function startWorker(paths: string, out: Float64Array, progress: Int32Array): StatWorker | undefined {
  let thread: Worker;
  try {
    thread = new Worker(WORKER_SOURCE, { eval: true });
  } catch {
    return undefined;
  }
  thread.unref();
  const finished = new Promise<void>((resolve) => {
    thread.once('message', () => resolve());
    thread.once('error', () => resolve());
    thread.once('exit', () => resolve());
  });
  thread.postMessage({ paths, out: out.buffer, progress: progress.buffer });
  return { thread, finished };
}
