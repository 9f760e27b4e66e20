import { randomUUID } from 'node:crypto';
import { errors, LISTED_MAX } from '@lode/errors';
import { commit, lock, type Actor } from '@lode/contracts';
import { MAIN_BRANCH, MAX_COMMIT_ENTRIES } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import { preferIndexScans, type Database, type Queryable } from '@lode/db';
import type { Logger } from '@lode/telemetry';
import { outboxTraceContext } from '@lode/outbox';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { CommitsRepository, SmallCommit, SmallCommitOutcome } from '../repo/commits-repo.ts';
import { planEntries, type Resolution } from './commit-plan.ts';
import type { StagedCommitsRepository, StagedCommitTarget, StaleEntry } from '../repo/staged-commits-repo.ts';
import { PART_ENTRY_BYTES, type CommitCreatedHeader } from './event-parts.ts';
import { draftFenceTtlMs, placeFence, placeFencePages, type Fence } from './fence.ts';
import { createdByCommit, MAIN_BY_COMMIT } from './lineage.ts';

/**
 * Staged entries per statement of a draft's commit: as many as a commit sent whole writes in one,
 * far inside the statement timeout on a loaded machine (docs/performance.md, the 100,000-file
 * draft commit).
 */
const STAGED_BATCH_ENTRIES = MAX_COMMIT_ENTRIES;

export interface CommitRecorderDeps {
  db: Database;
  bus: Bus;
  commits: CommitsRepository;
  branches: BranchesRepository;
  staged: StagedCommitsRepository;
  logger: Logger;
  /** Lifetime of the lock fence; the transaction must commit well within it. */
  fenceTtlMs: number;
  /** Called after a commit's transaction committed, so the outbox relay publishes without waiting for its poll. */
  onCommitted: () => void;
}

/** What recordSmall did: the commit made, or what it found instead (the key's outcome or claim, no branch). */
export type SmallRecorded = Exclude<SmallCommitOutcome, { outcome: 'committed' }> | { outcome: 'committed'; reply: commit.Commit };

/** The steps of one fenced write: what runs before the transaction, in it, and whether it committed. */
export interface FencedSteps<P, R> {
  /** Outside any transaction, while the fence is being placed: the bus calls (versions to resolve or make). */
  prepare(): Promise<P>;
  /** The transaction's work; its outcome is committed with it. */
  write(tx: Queryable, prepared: P): Promise<R>;
  /**
   * If given, tried first instead of the transaction: the whole work as one statement that commits on
   * its own, and commits nothing once `msLeft` milliseconds have passed from its start (measured once
   * a connection is at hand). Undefined when it wrote nothing and leaves the work to `write`.
   */
  writeAlone?(q: Queryable, prepared: P, msLeft: number): Promise<R | undefined>;
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
   * comes before anything the transaction would find. A commit of more files than one fence request
   * carries gives its file ids page by page (placeFencePages) and how many there are: its fence
   * lives longer, as long as that many files take (draftFenceTtlMs).
   */
  async fenced<P, R>(actor: Actor, fileIds: readonly string[] | { pages: AsyncIterable<string[]>; count: number }, steps: FencedSteps<P, R>): Promise<R> {
    const { db, bus, fenceTtlMs } = this.#deps;
    const fence =
      'pages' in fileIds
        ? placeFencePages(bus, actor, fileIds.pages, draftFenceTtlMs(fileIds.count, fenceTtlMs))
        : placeFence(bus, actor, [...fileIds], fenceTtlMs);
    let outcome: { value: R } | undefined;
    try {
      const prepared = await steps.prepare();
      await fence.placed();
      // Past the deadline the fence may have lapsed and a lock been taken since: give up, commit nothing.
      const writeAlone = steps.writeAlone?.bind(steps);
      const alone = writeAlone && (await db.onConnection((q) => writeAlone(q, prepared, fence.deadline - performance.now())));
      const value =
        alone ??
        (await db.transaction(async (tx) => {
          const written = await steps.write(tx, prepared);
          if (performance.now() > fence.deadline) throw errors.timeout('commit');
          return written;
        }));
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
    const { commits } = this.#deps;
    const { branchChanges, ...opened } = await this.#open(tx, actor, columns.branch ?? MAIN_BRANCH);
    await options.afterLock?.();
    const tree = await commits.treeStates(tx, actor.projectId, opened.branch, columns.fileIds);
    const planned = planEntries(columns, resolved, tree);
    const reply: commit.Commit = { id: randomUUID(), ...opened, message: columns.message, fileCount: planned.length };
    const header = this.#header(actor, reply, { kind: options.kind, branchChanges });
    await commits.record(tx, { ...reply, kind: options.kind, projectId: actor.projectId, authorId: actor.userId, authorName: actor.userName }, planned, tree, {
      subject: commit.commitCreated.subject,
      header,
      partBytes: PART_ENTRY_BYTES,
      traceContext: outboxTraceContext(),
    });
    return reply;
  }

  /**
   * A commit of a few entries (recordableSmall), as `record` makes it, and with its idempotency key's
   * claim, lookup and save (idempotent-commit.ts reads the outcome), in one statement that commits on
   * its own, instead of a transaction's round trips. Main is created, if need be, as #open creates
   * it; another branch must exist (branch_missing otherwise, with nothing written): its creation
   * copies main's tree, which is the transaction's. Nothing is committed past `msLeft`
   * (FencedSteps.writeAlone).
   */
  async recordSmall(
    q: Queryable,
    actor: Actor,
    columns: commit.CommitColumns,
    resolved: Resolution,
    options: { kind: commit.CommitKind; guard: SmallCommit['guard']; msLeft: number },
  ): Promise<SmallRecorded> {
    if (options.msLeft <= 0) throw errors.timeout('commit');
    const id = randomUUID();
    const branch = columns.branch ?? MAIN_BRANCH;
    const recorded = await this.#deps.commits.recordSmall(q, {
      commit: {
        id,
        projectId: actor.projectId,
        branch,
        message: columns.message,
        authorId: actor.userId,
        authorName: actor.userName,
        kind: options.kind,
      },
      root: branch === MAIN_BRANCH ? { name: branch, ...MAIN_BY_COMMIT } : null,
      entries: columns,
      resolved,
      event: { subject: commit.commitCreated.subject, partBytes: PART_ENTRY_BYTES, traceContext: outboxTraceContext() },
      guard: options.guard,
      msLeft: options.msLeft,
    });
    if (recorded.outcome !== 'committed') return recorded;
    const reply = { id, sequenceNum: recorded.sequenceNum, branch, message: columns.message, fileCount: columns.fileIds.length };
    return { outcome: 'committed', reply };
  }

  /**
   * A draft's staged entries as one commit (kind `draft`), under the same lock and rules as
   * `record`, set-based in SQL and batch by batch (STAGED_BATCH_ENTRIES): each batch is checked
   * against the branch's tree and copied from the draft in one statement, then the commit's row is
   * written with their count, then its commit.created parts, built in SQL a batch's worth at a time.
   * The service holds only each part's first file id: that is what bounds its memory and each
   * statement's time, for a commit of any size. Stale versions and deletions of absent files refuse
   * it, with the first LISTED_MAX of each and how many there are; the batches already written roll
   * back with the transaction.
   */
  async recordStaged(tx: Queryable, actor: Actor, draft: { id: string; message: string; branch: string }): Promise<commit.Commit> {
    const { staged } = this.#deps;
    await preferIndexScans(tx);
    const { branchChanges, ...opened } = await this.#open(tx, actor, draft.branch);
    const target = { id: randomUUID(), projectId: actor.projectId, ...opened };
    const { fileCount, partStarts } = await this.#writeStaged(tx, target, draft.id);
    const kind = 'draft';
    const author = { authorId: actor.userId, authorName: actor.userName };
    const createdAt = await staged.recordCommit(tx, { ...target, message: draft.message, kind, fileCount, ...author });
    const reply: commit.Commit = { id: target.id, ...opened, message: draft.message, fileCount };
    const event = {
      subject: commit.commitCreated.subject,
      commitId: target.id,
      header: { ...this.#header(actor, reply, { kind, branchChanges }), createdAt: createdAt.toISOString() },
      parts: partStarts.flat().length,
      traceContext: outboxTraceContext(),
    };
    let firstPart = 1;
    for (const [i, starts] of partStarts.entries()) {
      await staged.writeEventParts(tx, event, { starts, firstPart, until: partStarts[i + 1]?.[0] });
      firstPart += starts.length;
    }
    return reply;
  }

  /**
   * Writes the draft's entries into the commit batch by batch; once a batch finds stale versions or
   * absent deletions, the rest are only checked, so the refusal counts them all. Answers how many
   * entries were written and, per batch, where its event parts begin.
   */
  async #writeStaged(tx: Queryable, target: StagedCommitTarget, draftId: string): Promise<{ fileCount: number; partStarts: string[][] }> {
    const stale: StaleEntry[] = [];
    const absent: string[] = [];
    let staleCount = 0;
    let absentCount = 0;
    let fileCount = 0;
    const partStarts: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const write = staleCount + absentCount === 0;
      const limit = STAGED_BATCH_ENTRIES;
      const batch = await this.#deps.staged.recordBatch(tx, target, draftId, { after, limit, write, partBytes: PART_ENTRY_BYTES, listed: LISTED_MAX });
      stale.push(...batch.stale.slice(0, LISTED_MAX - stale.length));
      absent.push(...batch.absent.slice(0, LISTED_MAX - absent.length));
      staleCount += batch.staleCount;
      absentCount += batch.absentCount;
      fileCount += batch.count;
      if (batch.partStarts.length > 0) partStarts.push(batch.partStarts);
      if (batch.count < limit || batch.last === null) break;
      after = batch.last;
    }
    if (staleCount > 0) throw errors.staleVersion(stale, staleCount);
    if (absentCount > 0) throw errors.fileNotInBranch(absent, absentCount);
    return { fileCount, partStarts };
  }

  /**
   * The project's next number, its branch changes, and the branch, created if this is its first
   * commit. Main, never deleted and the same row whoever creates it, is created by the sequence
   * statement itself. Another branch is created by a statement of its own once the lock is held: it
   * may have been created or deleted meanwhile, and its row is forked from main's head then.
   */
  async #open(tx: Queryable, actor: Actor, branch: string): Promise<{ sequenceNum: number; branchChanges: number; branch: string }> {
    const { commits, branches } = this.#deps;
    if (branch === MAIN_BRANCH) return { ...(await commits.nextSequence(tx, actor.projectId, { name: branch, ...MAIN_BY_COMMIT })), branch };
    const { sequenceNum, branchChanges } = await commits.nextSequence(tx, actor.projectId);
    const committer = { userId: actor.userId, userName: actor.userName };
    await branches.createOnCommit(tx, { projectId: actor.projectId, name: branch, ...createdByCommit(branch, sequenceNum, committer) });
    return { sequenceNum, branchChanges, branch };
  }

  /** The commit.created event's fields but its parts' and createdAt, which the commit's row gives. */
  #header(actor: Actor, reply: commit.Commit, at: { kind: commit.CommitKind; branchChanges: number }): Omit<CommitCreatedHeader, 'createdAt'> {
    return {
      commitId: reply.id,
      projectId: actor.projectId,
      branch: reply.branch,
      sequenceNum: reply.sequenceNum,
      kind: at.kind,
      branchChanges: at.branchChanges,
      message: reply.message,
      author: { userId: actor.userId, userName: actor.userName },
      fileCount: reply.fileCount,
    };
  }

  /**
   * Releases the committer's locks (after a commit) and the fence, if it was placed. If this fails the
   * commit stands: the fence lapses on its own, and the lock service also releases the locks from
   * commit.created.
   */
  async #settle(actor: Actor, fence: Fence, committed: boolean): Promise<void> {
    const settled = (await fence.placedIds()).map(async (fenceId) => {
      try {
        await this.#deps.bus.call(lock.settleFence, { projectId: actor.projectId, fenceId, committed });
      } catch (error) {
        this.#deps.logger.warn({ err: error, fenceId }, 'settling the lock fence failed; it lapses on its own');
      }
    });
    await Promise.all(settled);
  }
}
