import { errors } from '@lode/errors';
import type { commit, lock, ParsedRequestOf, ReplyOf } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { LocksRepository } from '../repo/locks-repo.ts';
import type { FencesRepository } from '../repo/fences-repo.ts';
import { lockedFile } from './lock-plan.ts';

/**
 * The lock service's side of the commit fence (docs/architecture.md): a lock's transitions while a
 * commit including the file runs, enforced with no window between the lock check and the commit.
 */
export class FenceService {
  readonly #db: Database;
  readonly #locks: LocksRepository;
  readonly #fences: FencesRepository;
  readonly #onEvents: () => void;

  /** onEvents: a release that wrote its lock.changed event committed (the outbox relay publishes it at once). */
  constructor(deps: { db: Database; locks: LocksRepository; fences: FencesRepository; onEvents: () => void }) {
    this.#db = deps.db;
    this.#locks = deps.locks;
    this.#fences = deps.fences;
    this.#onEvents = deps.onEvents;
  }

  /** 409 file_locked if another user holds any of the files; otherwise other users cannot lock them until settled or expired. */
  async fence(request: ParsedRequestOf<typeof lock.fence>): Promise<ReplyOf<typeof lock.fence>> {
    const heldByOthers = await this.#fences.insertUnlessLocked(this.#db, request);
    if (heldByOthers.length > 0) throw errors.fileLocked(heldByOthers.map(lockedFile));
    return { fenced: true };
  }

  /**
   * Drops the fence and, after a commit, the committer's locks on the fenced files. A fence already
   * gone (expired and purged) releases nothing here: commit.created does it (releaseCommitted).
   *
   * The settle does not wait for its WAL to reach the disk (asynchronous commit): what it changed is
   * visible to every later request at once, which is what the commit's caller relies on; only a
   * crash of Postgres within a fraction of a second could undo it, and then the fence lapses on its
   * own and commit.created releases the locks, as when a settle is lost on the way.
   */
  async settle({ projectId, fenceId, committed }: ParsedRequestOf<typeof lock.settleFence>): Promise<ReplyOf<typeof lock.settleFence>> {
    const { releasedLocks } = await this.#fences.settle(this.#db, projectId, fenceId, committed);
    if (releasedLocks > 0) this.#onEvents();
    return { releasedLocks };
  }

  /**
   * The fallback for a settle that never happened (a commit service crash, a lost reply): releases
   * the author's locks on the committed files taken before the commit. Idempotent, so redelivery
   * and a settle that did happen are harmless; a lock taken again after the commit survives.
   */
  async releaseCommitted(event: commit.CommitCreated): Promise<void> {
    const released = await this.#locks.removeHolders(
      this.#db,
      event.projectId,
      event.author.userId,
      event.entries.map((e) => e.fileId),
      event.createdAt,
    );
    if (released > 0) this.#onEvents();
  }

  async purgeExpired(): Promise<number> {
    return this.#fences.purgeExpired(this.#db);
  }
}
