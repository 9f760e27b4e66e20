import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import { lock, type Actor, type commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import type { Database, Queryable } from '@lode/db';
import type { Logger } from '@lode/telemetry';
import { writeOutbox } from '@lode/outbox';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { CommitsRepository } from '../repo/commits-repo.ts';
import { planEntries, type Resolution } from './commit-plan.ts';
import { commitCreatedEvents } from './event-parts.ts';
import { placeFence, type Fence } from './fence.ts';
import { createdByCommit } from './lineage.ts';

export interface CommitRecorderDeps {
  db: Database;
  bus: Bus;
  commits: CommitsRepository;
  branches: BranchesRepository;
  logger: Logger;
  /** Lifetime of the lock fence; the transaction must commit well within it. */
  fenceTtlMs: number;
  /** Called after a commit's transaction committed, so the outbox relay publishes without waiting for its poll. */
  onCommitted: () => void;
}

/** The steps of one fenced write: what runs before the transaction, in it, and whether it committed. */
export interface FencedSteps<P, R> {
  /** Outside any transaction, while the fence is being placed: the bus calls (versions to resolve or make). */
  prepare(): Promise<P>;
  /** The transaction's work; its outcome is committed with it. */
  write(tx: Queryable, prepared: P): Promise<R>;
  /** Whether the outcome made a commit (not a replayed one), so the committer's locks are released. */
  committed(outcome: R): boolean;
}

/**
 * What every commit does, whoever asks for it (a client, a restore, a merge): its files fenced
 * against other users' locks, its preparation outside any transaction, then one transaction that
 * takes the project's next number, checks the entries against the branch's tree and records the
 * commit, its tree and its outbox event (docs/architecture.md, the fence).
 */
export class CommitRecorder {
  readonly #deps: CommitRecorderDeps;

  constructor(deps: CommitRecorderDeps) {
    this.#deps = deps;
  }

  /**
   * The fence is asked for first and placed while `prepare` runs, and the transaction opens only
   * once it is in place: no transaction waits on another service's reply, so a lock service that
   * does not answer holds no connection and no project's sequence row. Its refusal (file_locked)
   * comes before anything the transaction would find.
   */
  async fenced<P, R>(actor: Actor, fileIds: readonly string[], steps: FencedSteps<P, R>): Promise<R> {
    const { db, bus, fenceTtlMs } = this.#deps;
    const fence = placeFence(bus, actor, [...fileIds], fenceTtlMs);
    let outcome: { value: R } | undefined;
    try {
      const prepared = await steps.prepare();
      await fence.placed();
      const value = await db.transaction(async (tx) => {
        const written = await steps.write(tx, prepared);
        // Past the deadline the fence may have lapsed and a lock been taken since: give up, commit nothing.
        if (performance.now() > fence.deadline) throw errors.timeout('commit');
        return written;
      });
      outcome = { value };
    } finally {
      await this.#settle(actor, fence, outcome !== undefined && steps.committed(outcome.value));
    }
    if (steps.committed(outcome.value)) this.#deps.onCommitted();
    return outcome.value;
  }

  /**
   * Inside the transaction: the project's next number (its row lock serializes the project's
   * commits), the branch if this is its first commit, then `afterLock` (a check that must see
   * everything committed before it), the entries
   * planned against the branch's tree, and the commit recorded with its commit.created event.
   */
  async record(
    tx: Queryable,
    actor: Actor,
    columns: commit.CommitColumns,
    resolved: Resolution,
    options: { kind: commit.CommitKind; afterLock?: () => Promise<void> },
  ): Promise<commit.Commit> {
    const { commits, branches } = this.#deps;
    const branch = columns.branch ?? MAIN_BRANCH;
    const sequenceNum = await commits.nextSequence(tx, actor.projectId);
    // A branch's first commit creates it (after the lock: it may have been created or deleted meanwhile).
    const committer = { userId: actor.userId, userName: actor.userName };
    await branches.createOnCommit(tx, { projectId: actor.projectId, name: branch, ...createdByCommit(branch, sequenceNum, committer) });
    await options.afterLock?.();
    const { branchChanges } = await commits.latestSequence(tx, actor.projectId);
    const tree = await commits.treeStates(tx, actor.projectId, branch, columns.fileIds);
    const planned = planEntries(columns, resolved, tree);
    const reply: commit.Commit = { id: randomUUID(), sequenceNum, message: columns.message, fileCount: planned.length, branch };
    const createdAt = await commits.record(
      tx,
      { ...reply, kind: options.kind, projectId: actor.projectId, authorId: actor.userId, authorName: actor.userName },
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
          kind: options.kind,
          branchChanges,
          message: columns.message,
          author: { userId: actor.userId, userName: actor.userName },
          createdAt: createdAt.toISOString(),
          fileCount: planned.length,
        },
        planned.map(({ fileId, path, action, version, sha256, size }) => ({ fileId, path, action, version, sha256, size })),
      ),
    );
    return reply;
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
