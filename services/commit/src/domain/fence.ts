import { randomUUID } from 'node:crypto';
import { errors, isAppError, LISTED_MAX } from '@lode/errors';
import { drafts, lock, type Actor } from '@lode/contracts';
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

/**
 * Lock fence lifetime per file of a draft: several times what a draft's commit took per file on a
 * loaded 2-core machine (docs/performance.md, the 100,000-file draft commit), so a commit of any
 * size that the machine can make in time is not abandoned for its fence.
 */
const FENCE_MS_PER_DRAFT_FILE = 0.5;

/**
 * The lifetime to ask for a draft's fence: the usual one (LODE_LOCK_FENCE_TTL_MS), or longer for
 * a large draft, up to MAX_FINALIZE_FENCE_MS. Only a commit service that dies mid-commit leaves it to
 * lapse; a finished commit settles it at once.
 */
export function draftFenceTtlMs(fileCount: number, baseTtlMs: number): number {
  return Math.max(baseTtlMs, Math.min(drafts.MAX_FINALIZE_FENCE_MS, Math.ceil(fileCount * FENCE_MS_PER_DRAFT_FILE)));
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
  const outcome = bus.call(lock.fence, { projectId: actor.projectId, userId: actor.userId, userName: actor.userName, fenceId, fileIds, ttlMs }).then(
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

/** Fence requests of one draft in flight at once: each carries up to 25,000 ids to the lock service and back. */
const FENCE_PAGES_IN_FLIGHT = 2;

type LockedFile = Parameters<typeof errors.fileLocked>[0][number];

/**
 * Fences the files page by page as `pages` yields them (each page at most one fence request's
 * files), at most FENCE_PAGES_IN_FLIGHT requests at a time: the pages are read as the lock service answers, so
 * neither service holds more than that many pages of a draft of any size. Refusals by locks do not
 * stop it, so that they are answered as one file_locked with the first LISTED_MAX locked files (in
 * file id order, as the pages come) and how many there are in every page; any other failure stops it
 * and is answered as itself.
 */
export function placeFencePages(bus: Bus, actor: Actor, pages: AsyncIterable<string[]>, ttlMs: number): Fence {
  const deadline = deadlineOf(ttlMs);
  const placedIds: string[] = [];
  // The locked files of the refused pages by page number, only as many pages as hold the first
  // LISTED_MAX: pages answer out of order, and the error lists them in page order.
  const lockedByPage = new Map<number, LockedFile[]>();
  let lockedCount = 0;
  let failure: { error: unknown } | undefined;
  const keepFirstListed = () => {
    let kept = 0;
    for (const page of [...lockedByPage.keys()].sort((a, b) => a - b)) {
      if (kept >= LISTED_MAX) lockedByPage.delete(page);
      else kept += lockedByPage.get(page)?.length ?? 0;
    }
  };

  /** Never rejects: a refusal or failure is recorded for placed() to answer. */
  const request = async (page: string[], n: number): Promise<void> => {
    const fence = placeFence(bus, actor, page, ttlMs);
    try {
      await fence.placed();
    } catch (error) {
      if (isAppError(error) && error.code === 'file_locked') {
        const refused = (error.details?.lockedFiles as LockedFile[] | undefined) ?? [];
        // Pages are runs of file ids, so page order then id order within each is the draft's id order.
        lockedByPage.set(n, refused.toSorted((a, b) => (a.fileId < b.fileId ? -1 : 1)).slice(0, LISTED_MAX));
        keepFirstListed();
        lockedCount += (error.details?.lockedFileCount as number | undefined) ?? refused.length;
      } else {
        failure ??= { error };
      }
    }
    placedIds.push(...(await fence.placedIds()));
  };
  const settled = (async () => {
    const running = new Set<Promise<void>>();
    let n = 0;
    try {
      for await (const page of pages) {
        const sent: Promise<void> = request(page, n++).then(() => {
          running.delete(sent);
        });
        running.add(sent);
        if (running.size >= FENCE_PAGES_IN_FLIGHT) await Promise.race(running);
        if (failure) break;
      }
    } catch (error) {
      failure ??= { error };
    } finally {
      // Whatever happened, every request sent is answered before its fence can be settled.
      await Promise.all(running);
    }
  })();
  return {
    deadline,
    async placed() {
      await settled;
      if (failure) throw failure.error;
      if (lockedCount === 0) return;
      const locked = [...lockedByPage].sort(([a], [b]) => a - b).flatMap(([, files]) => files);
      throw errors.fileLocked(locked.slice(0, LISTED_MAX), lockedCount);
    },
    async placedIds() {
      await settled;
      return placedIds;
    },
  };
}
