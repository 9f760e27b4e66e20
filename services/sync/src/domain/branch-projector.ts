import type { branches } from '@lode/contracts';
import type { Database, Queryable } from '@lode/db';
import type { Logger } from '@lode/telemetry';
import type { BranchesRepository } from '../repo/branches-repo.ts';
import type { ProgressRepository } from '../repo/progress-repo.ts';
import type { TreeRepository } from '../repo/tree-repo.ts';
import { planBranchChange } from './branch-change-plan.ts';

export interface BranchProjectorDeps {
  db: Database;
  logger: Logger;
  progress: ProgressRepository;
  branches: BranchesRepository;
  tree: TreeRepository;
  /** Called after a change became visible in the read model. */
  onApplied: () => void;
}

/**
 * Applies branch.changed to the read model, each in its place among the project's commits
 * (planBranchChange): a branch created by POST starts as its parent's tree as it stood at the fork,
 * with the lineage it came with; a deleted branch's tree goes (its history stays, for the branches
 * forked from it). One change per transaction, with the project's progress row locked.
 */
export class BranchProjector {
  readonly #deps: BranchProjectorDeps;

  constructor(deps: BranchProjectorDeps) {
    this.#deps = deps;
  }

  /** earlierSettled: whether every branch.changed stored before this one has been handled (EventMeta). */
  async apply(event: branches.BranchChanged, earlierSettled: () => Promise<boolean>): Promise<'done' | 'deferred'> {
    const first = await this.#apply(event, false);
    if (first !== 'deferred' || !(await earlierSettled())) return first;
    return this.#apply(event, true);
  }

  async #apply(event: branches.BranchChanged, earlierSettled: boolean): Promise<'done' | 'deferred'> {
    const { db, logger, progress } = this.#deps;
    const { projectId } = event;
    const outcome = await db.transaction(async (tx) => {
      const plan = planBranchChange(await progress.lockForBranchChange(tx, projectId), event, earlierSettled);
      for (const problem of plan.problems) {
        logger.error({ projectId, change: event.change, branch: event.name }, `sync read model incomplete: ${problem}; rebuild it (docs/architecture.md)`);
      }
      if (plan.action !== 'apply') return plan.action;
      await this.#change(tx, event);
      await progress.markChangeApplied(tx, projectId, event.change);
      return 'applied';
    });
    if (outcome === 'applied') this.#deps.onApplied();
    return outcome === 'defer' ? 'deferred' : 'done';
  }

  async #change(tx: Queryable, event: branches.BranchChanged): Promise<void> {
    const { branches, tree } = this.#deps;
    const { projectId, name } = event;
    if (event.action === 'deleted') {
      await tree.deleteBranch(tx, projectId, name);
      await branches.delete(tx, projectId, name);
      return;
    }
    if (event.forkedFrom !== null && (await branches.createForked(tx, projectId, name, event.afterSeq, event.lineage))) {
      await tree.copyBranch(tx, projectId, event.forkedFrom, name);
    }
  }
}
