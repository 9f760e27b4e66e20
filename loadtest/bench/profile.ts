import type { Rounds, SmallCallShape } from './load.ts';

/** Sizes and repetitions of every scenario; a round's figures exclude its setup. */
export interface Profile {
  name: 'full' | 'quick';
  /** Baselines, validate-key, locks and version listing. */
  small: SmallCallShape;
  versions: { count: number };
  initiateBatch: Rounds & { entries: number };
  /** Both ways of confirming, each `rounds` times; `inFlight` single confirms at a time. */
  confirmBatch: Rounds & { entries: number; bytes: number; inFlight: number };
  push: Rounds & { files: number; bytes: number; inFlight: number };
  pushMemory: { files: number; mib: number; inFlight: number };
  commitOne: Rounds;
  commitLarge: Rounds & { files: number };
  /** The budget covers both ways of sending the batches. */
  sync: Rounds & { files: number; parallel: number };
  restore: Rounds & { files: number };
  downloadUrls: Rounds & { entries: number };
  /** The tree page's project size and the log page's commit count. */
  browse: { files: number; commits: number };
  /** The versions of the project whose usage is read (seeded in bulk, folded first). */
  usage: { versions: number };
  /** The project's versions, and the share of them an obliteration left collectable. */
  gc: { versions: number; collectableShare: number };
  /** The versions of the project whose retention rules are evaluated (a dry run). */
  retention: { versions: number };
}

const FULL: Profile = {
  name: 'full',
  small: { samples: 2000, warmup: 200, budgetMs: 10_000, loop: { inFlight: 64, durationMs: 5000, warmupMs: 1000 } },
  versions: { count: 50 },
  initiateBatch: { entries: 1000, rounds: 30, warmup: 3, budgetMs: 30_000 },
  confirmBatch: { entries: 1000, bytes: 1024, inFlight: 8, rounds: 10, warmup: 1, budgetMs: 60_000 },
  push: { files: 100, bytes: 4096, rounds: 10, warmup: 1, inFlight: 8, budgetMs: 30_000 },
  pushMemory: { files: 20, mib: 8, inFlight: 4 },
  commitOne: { rounds: 200, warmup: 20, budgetMs: 30_000 },
  commitLarge: { files: 25_000, rounds: 5, warmup: 1, budgetMs: 60_000 },
  sync: { files: 100_000, rounds: 8, warmup: 2, parallel: 4, budgetMs: 45_000 },
  restore: { files: 1000, rounds: 15, warmup: 1, budgetMs: 60_000 },
  downloadUrls: { entries: 1000, rounds: 50, warmup: 5, budgetMs: 30_000 },
  browse: { files: 25_000, commits: 200 },
  usage: { versions: 1_000_000 },
  gc: { versions: 1_000_000, collectableShare: 0.1 },
  retention: { versions: 1_000_000 },
};

/** A smoke run: every scenario end to end, quickly, with too few samples to quote. */
const QUICK: Profile = {
  name: 'quick',
  small: { samples: 200, warmup: 20, loop: { inFlight: 64, durationMs: 1000, warmupMs: 300 } },
  versions: { count: 10 },
  initiateBatch: { entries: 1000, rounds: 3, warmup: 1 },
  confirmBatch: { entries: 1000, bytes: 1024, inFlight: 8, rounds: 2, warmup: 1 },
  push: { files: 20, bytes: 4096, rounds: 2, warmup: 1, inFlight: 8 },
  pushMemory: { files: 4, mib: 8, inFlight: 4 },
  commitOne: { rounds: 20, warmup: 5 },
  commitLarge: { files: 2500, rounds: 2, warmup: 1 },
  sync: { files: 20_000, rounds: 2, warmup: 1, parallel: 4 },
  restore: { files: 200, rounds: 2, warmup: 1 },
  downloadUrls: { entries: 1000, rounds: 5, warmup: 1 },
  browse: { files: 2500, commits: 60 },
  usage: { versions: 100_000 },
  gc: { versions: 100_000, collectableShare: 0.1 },
  retention: { versions: 100_000 },
};

/**
 * Against --url every file is pushed through the public API (no bulk SQL), so the two largest
 * projects shrink tenfold there; their names carry the size and their targets do not apply.
 */
export function profileFor(quick: boolean, bulkSetup: boolean): Profile {
  const base = quick ? QUICK : FULL;
  if (bulkSetup || quick) return base;
  return { ...base, commitLarge: { ...base.commitLarge, files: 2500 }, sync: { ...base.sync, files: 10_000 } };
}

/** A size the environment sets in units of `unit` (a count, KiB, MiB), or `fallback` when it sets none. */
export function sizeFromEnv(name: string, unit: number, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of at least 0, not ${value}`);
  return Math.round(n * unit);
}
