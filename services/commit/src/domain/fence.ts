import { randomUUID } from 'node:crypto';
import { errors, isAppError, type AppError } from '@lode/errors';
import { lock, type Actor } from '@lode/contracts';
import type { Bus } from '@lode/bus';

/**
 * A commit's lock fence, asked of the lock service while the commit's versions are resolved, and in
 * place before its transaction opens (docs/architecture.md, the fence). A commit of more files than
 * one fence request carries (a draft's) is fenced by several, one per page of files.
 */
export interface Fence {
  /** When the transaction must have committed, on this process's monotonic clock. */
  deadline: number;
  /** Resolves once the fence is in place; rejects with the lock service's refusal (file_locked) or failure. */
  placed(): Promise<void>;
  /** The ids of the fences that were placed, so that they need settling; waits for every answer. */
  placedIds(): Promise<string[]>;
}

/** Measured from before the first request, so the deadline ends before any fence can lapse. */
function deadlineOf(ttlMs: number): number {
  return performance.now() + ttlMs - Math.min(5000, ttlMs / 4);
}

/**
 * Starts fencing the files: another user's lock refuses the commit, and once placed the fence refuses
 * other users' lock requests until settled or expired. The deadline leaves a margin inside the
 * fence's lifetime, measured from before the call, so it ends before the fence can lapse.
 */
export function placeFence(bus: Bus, actor: Actor, fileIds: string[], ttlMs: number): Fence {
  const fenceId = randomUUID();
  const deadline = deadlineOf(ttlMs);
  const outcome = bus
    .call(lock.fence, { projectId: actor.projectId, userId: actor.userId, userName: actor.userName, fenceId, fileIds, ttlMs })
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  return {
    deadline,
    async placed() {
      const failed = await outcome;
      if (failed) throw failed.error;
    },
    async placedIds() {
      return (await outcome) === undefined ? [fenceId] : [];
    },
  };
}

/**
 * Fences the files page by page as `pages` yields them (each page at most one fence request's
 * files), the requests in flight together. Refusals by locks are answered as one file_locked naming
 * every page's locked files; any other failure as itself.
 */
export function placeFencePages(bus: Bus, actor: Actor, pages: AsyncIterable<string[]>, ttlMs: number): Fence {
  const deadline = deadlineOf(ttlMs);
  const fences: Fence[] = [];
  const listed = (async () => {
    for await (const page of pages) fences.push(placeFence(bus, actor, page, ttlMs));
  })().then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  return {
    deadline,
    async placed() {
      const failed = await listed;
      if (failed) throw failed.error;
      const outcomes = await Promise.allSettled(fences.map((fence) => fence.placed()));
      const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      if (refusals.length === 0) return;
      const locked = refusals.filter((e): e is AppError => isAppError(e) && e.code === 'file_locked');
      if (locked.length < refusals.length) throw refusals.find((e) => !locked.includes(e as AppError));
      throw errors.fileLocked(locked.flatMap((e) => (e.details?.lockedFiles as Parameters<typeof errors.fileLocked>[0] | undefined) ?? []));
    },
    async placedIds() {
      await listed;
      return (await Promise.all(fences.map((fence) => fence.placedIds()))).flat();
    },
  };
}
