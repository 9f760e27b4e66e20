import { commit } from '@lode/contracts';
import { MAIN_BRANCH } from '@lode/contracts/commit';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import type { CommitsRepository } from '../repo/commits-repo.ts';

export function serveTreeStates(bus: Bus, db: Database, commits: CommitsRepository): void {
  bus.serve(commit.treeStates, async ({ projectId, fileIds }) => ({
    files: [...(await commits.treeStates(db, projectId, MAIN_BRANCH, fileIds)).values()],
  }));
}
