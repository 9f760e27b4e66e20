import type { commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Database } from '@lode/db';
import type { CommitsRepository } from '../repo/commits-repo.ts';

/**
 * What other services ask of the committed state, outside any commit and as of that moment: a
 * project's latest sequence number (sync's read-your-writes), main's state of some files
 * (restore's triage), and the versions branches and drafts still need (retention).
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

  /** The versions of these files something here still needs (branch tips, drafts' staged versions): retention keeps them. */
  async pinnedVersions(projectId: string, fileIds: readonly string[]): Promise<{ fileId: string; version: number }[]> {
    return this.#commits.pinnedVersions(this.#db, projectId, MAIN_BRANCH, fileIds);
  }
}
