import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { assertUniqueFileIds, lock, upload, type Actor, type commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import { replayIdempotent, type Database, type IdempotencyScope, type Queryable } from '@lode/db';
import type { Logger } from '@lode/telemetry';
import { writeOutbox } from '@lode/outbox';
import type { CommitsRepository } from '../repo/commits-repo.ts';
import type { IdempotencyRepository } from '../repo/idempotency-repo.ts';
import { checkResolved, planEntries, type Resolution } from './commit-plan.ts';
import { commitCreatedEvents } from './event-parts.ts';
import { placeFence, type Fence } from './fence.ts';
import { commitRequestHash } from './request-hash.ts';

export interface CommitServiceDeps {
  db: Database;
  bus: Bus;
  commits: CommitsRepository;
  idempotency: IdempotencyRepository;
  logger: Logger;
  /** Lifetime of the lock fence; the transaction must commit well within it. */
  fenceTtlMs: number;
  /** Called after a commit's transaction committed, so the outbox relay publishes without waiting for its poll. */
  onCommitted: () => void;
}

/**
 * Spec 4.6: validate every entry, then make the commit visible atomically with the next sequence
 * number, the tree, the branch head, the idempotency record and the outbox event.
 */
export class CommitService {
  readonly #deps: CommitServiceDeps;

  constructor(deps: CommitServiceDeps) {
    this.#deps = deps;
  }

  async create(actor: Actor, columns: commit.CommitColumns, idempotencyKey: string | undefined): Promise<commit.Commit> {
    const { db, idempotency } = this.#deps;
    assertUniqueFileIds(columns.fileIds, 'commit');
    const requestHash = commitRequestHash(columns);
    const scope: IdempotencyScope | undefined = idempotencyKey === undefined ? undefined : { projectId: actor.projectId, keyId: actor.keyId, key: idempotencyKey };
    // A replay answers from the record alone, before any work.
    const earlier = scope && (await idempotency.find(db, scope));
    if (earlier) return replayIdempotent(earlier, requestHash);

    // The fence is asked for first and placed while the versions are resolved, and the transaction
    // opens only once it is in place: no transaction waits on another service's reply, so a lock
    // service that does not answer holds no connection and no project's sequence row (issue 16;
    // docs/architecture.md, the fence).
    const fence = placeFence(this.#deps.bus, actor, columns.fileIds, this.#deps.fenceTtlMs);
    let outcome: { reply: commit.Commit; replayed: boolean } | undefined;
    try {
      // Versions are immutable once confirmed, so this can be read before the transaction, in one call.
      const resolved = await this.#deps.bus.call(upload.resolveVersions, { projectId: actor.projectId, fileIds: columns.fileIds, versions: columns.versions });
      checkResolved(columns, resolved);
      // The fence's refusal (file_locked) comes before anything the transaction would find.
      await fence.placed();
      outcome = await db.transaction(async (tx) => {
        const result = await this.#commit(tx, actor, columns, resolved, { scope, requestHash });
        // Past the deadline the fence may have lapsed and a lock been taken since: give up, commit nothing.
        if (performance.now() > fence.deadline) throw errors.timeout('commit');
        return result;
      });
    } finally {
      await this.#settle(actor, fence, outcome !== undefined && !outcome.replayed);
    }
    if (!outcome.replayed) this.#deps.onCommitted();
    return outcome.reply;
  }

  async #commit(
    tx: Queryable,
    actor: Actor,
    columns: commit.CommitColumns,
    resolved: Resolution,
    guard: { scope: IdempotencyScope | undefined; requestHash: string },
  ): Promise<{ reply: commit.Commit; replayed: boolean }> {
    const { scope, requestHash } = guard;
    const { commits, idempotency } = this.#deps;
    const branch = columns.branch ?? MAIN_BRANCH;
    if (scope) {
      if (!(await idempotency.tryClaim(tx, scope))) throw errors.idempotencyInProgress();
      const finished = await idempotency.find(tx, scope);
      if (finished) return { reply: replayIdempotent(finished, requestHash), replayed: true };
    }
    const sequenceNum = await commits.nextSequence(tx, actor.projectId, branch, MAIN_BRANCH);
    const tree = await commits.treeStates(tx, actor.projectId, branch, columns.fileIds);
    const planned = planEntries(columns, resolved, tree);
    const reply: commit.Commit = { id: randomUUID(), sequenceNum, message: columns.message, fileCount: planned.length, branch };
    const createdAt = await commits.record(
      tx,
      { ...reply, projectId: actor.projectId, authorId: actor.userId, authorName: actor.userName },
      planned,
      tree,
    );
    await writeOutbox(
      tx,
      commitCreatedEvents(
        {
          commitId: reply.id,
          projectId: actor.projectId,
          branch,
          sequenceNum,
          message: columns.message,
          author: { userId: actor.userId, userName: actor.userName },
          createdAt: createdAt.toISOString(),
          fileCount: planned.length,
        },
        planned.map(({ fileId, path, action, version, sha256, size }) => ({ fileId, path, action, version, sha256, size })),
      ),
    );
    if (scope) await idempotency.save(tx, scope, { requestHash, response: reply });
    return { reply, replayed: false };
  }

  /** Past the retention an idempotency key may be used again: its outcome is no longer replayed. */
  async purgeOutcomesOlderThan(ageMs: number): Promise<number> {
    return this.#deps.idempotency.purgeOlderThan(this.#deps.db, ageMs);
  }

  /**
   * Releases the committer's locks (after a commit) and the fence, if it was placed. If this fails the
   * commit stands: the fence lapses on its own, and the lock service also releases the locks from
   * commit.created.
   */
  async #settle(actor: Actor, fence: Fence, committed: boolean): Promise<void> {
    if (!(await fence.wasPlaced())) return;
    try {
      await this.#deps.bus.call(lock.settleFence, { projectId: actor.projectId, fenceId: fence.fenceId, committed });
    } catch (error) {
      this.#deps.logger.warn({ err: error, fenceId: fence.fenceId }, 'settling the lock fence failed; it lapses on its own');
    }
  }
}
