import type { commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Database } from '@lode/db';
import type { CommitsRepository } from '../repo/commits-repo.ts';

/**
 * What other services ask of the committed state, outside any commit and as of that moment: a
 * project's latest sequence number (sync's read-your-writes) and main's state of some files
 * (restore's triage).
 */
export class TreeService {
  readonly #db: Database;
  readonly #commits: CommitsRepository;

  constructor(deps: { db: Database; commits: CommitsRepository }) {
    this.#db = deps.db;
    this.#commits = deps.commits;
  }

  async latestSequence(projectId: string): Promise<{ sequenceNum: number; branchChanges: number }> {
    return this.#commits.latestSequence(this.#db, projectId);
  }

  /** Main's state of the files it holds, deleted ones included; files it never held are left out. */
  async mainStates(projectId: string, fileIds: readonly string[]): Promise<commit.TreeState[]> {
    return [...(await this.#commits.treeStates(this.#db, projectId, MAIN_BRANCH, fileIds)).values()];
  }
}
