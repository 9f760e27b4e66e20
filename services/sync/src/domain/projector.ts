import { pathKey, type commit } from '@lode/contracts';
import { MAIN_BRANCH, MAX_COMMIT_ENTRIES } from '@lode/contracts/commit';
import { BEFORE_FIRST_ID, inKeySlices, preferIndexScans, type Database, type Queryable } from '@lode/db';
import type { Logger } from '@lode/telemetry';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { HistoryRepository } from '../repo/history-repo.ts';
import type { ProgressRepository } from '../repo/progress-repo.ts';
import type { StagingRepository } from '../repo/staging-repo.ts';
import type { TreeRepository } from '../repo/tree-repo.ts';
import { planPart } from './part-plan.ts';

export interface ProjectorDeps {
  db: Database;
  logger: Logger;
  progress: ProgressRepository;
  staging: StagingRepository;
  branches: BranchesRepository;
  tree: TreeRepository;
  history: HistoryRepository;
  /** Called after a commit became visible in the read model. */
  onApplied: () => void;
}

/** What became of one part: done (applied, staged or skipped), or deferred until the parts before it are applied. */
export type PartOutcome = 'done' | 'deferred';

/**
 * Builds the read model from commit.created, one part per transaction. The progress row decides
 * whether a part is new (planPart), so a redelivered part changes nothing, and a crash between
 * parts resumes from the staged ones. A commit is applied whole, with its last part. Parts are
 * applied strictly in sequence order: one that came early is deferred, since two replicas can hold
 * events of one project at once.
 */
export class Projector {
  readonly #deps: ProjectorDeps;

  constructor(deps: ProjectorDeps) {
    this.#deps = deps;
  }

  /**
   * earlierSettled: whether every event stored before this one has been handled (EventMeta). Asked
   * only for a part that came early, after the transaction that found it so, and monotonic: once
   * true, a part still missing on the second try was lost.
   */
  async apply(event: commit.CommitCreated, earlierSettled: () => Promise<boolean>): Promise<PartOutcome> {
    const first = await this.#applyPart(event, false);
    if (first !== 'deferred' || !(await earlierSettled())) return first;
    return this.#applyPart(event, true);
  }

  async #applyPart(event: commit.CommitCreated, earlierSettled: boolean): Promise<PartOutcome> {
    const { db, logger, progress, staging } = this.#deps;
    const { projectId, sequenceNum: seq } = event;
    // The same function as the client's paths go through (never SQL's lower()), so keys match.
    const entries = event.entries.map((entry) => ({ ...entry, pathKey: pathKey(entry.path) }));
    const outcome = await db.transaction(async (tx) => {
      const plan = planPart(await progress.lock(tx, projectId), event, earlierSettled);
      for (const problem of plan.problems) {
        logger.error(
          { projectId, commitId: event.commitId, sequenceNum: seq, part: event.part },
          `sync read model incomplete: ${problem}; rebuild it (docs/architecture.md)`,
        );
      }
      if (plan.action === 'defer') return 'deferred';
      if (plan.action === 'skip') return 'done';
      if (plan.discardStaged) await staging.discard(tx, projectId);
      await staging.add(tx, projectId, seq, entries);
      if (plan.action === 'stage') {
        await progress.markStaged(tx, projectId, seq, event.part);
        return 'done';
      }
      await this.#applyStaged(tx, projectId, event.branch, seq);
      await progress.markApplied(tx, projectId, seq);
      return 'applied';
    });
    if (outcome === 'applied') this.#deps.onApplied();
    return outcome === 'deferred' ? 'deferred' : 'done';
  }

  /**
   * Commits are applied in sequence order, so when a branch's first commit arrives main holds
   * exactly the commits before it: the branch starts from that state, as the commit service's does.
   */
  async #applyStaged(tx: Queryable, projectId: string, branch: string, seq: number): Promise<void> {
    const { staging, branches, tree, history } = this.#deps;
    if (branch !== MAIN_BRANCH && (await branches.create(tx, projectId, branch, seq - 1))) {
      await tree.copyBranch(tx, projectId, MAIN_BRANCH, branch);
    }
    // A million-file commit in one statement outlasts the statement timeout: the tree and history
    // take it a commit's batch (25,000 entries) per statement, in this one transaction, so readers
    // see it whole or not at all.
    await preferIndexScans(tx);
    await inKeySlices(BEFORE_FIRST_ID, MAX_COMMIT_ENTRIES, async (after, size) => {
      const range = await staging.nextRange(tx, projectId, seq, after, size);
      if (!range) return { count: 0, last: null };
      await tree.applyStaged(tx, projectId, branch, seq, range);
      await history.recordStaged(tx, projectId, branch, seq, range);
      return { count: range.count, last: range.through };
    });
    await staging.discard(tx, projectId);
  }
}
