import type { Bus } from '@lode/bus';
import { CursorCodec, type Database } from '@lode/db';
import type { BranchesRepository } from './repo/branches-repo.ts';
import { LogRepository } from './repo/log-repo.ts';
import { TreePagesRepository } from './repo/tree-pages-repo.ts';
import { FolderPagesRepository } from './repo/folder-pages-repo.ts';
import { MergeRepository } from './repo/merge-repo.ts';
import { BranchService } from './domain/branch-service.ts';
import { ListCursors } from './domain/list-cursors.ts';
import { LogService } from './domain/log-service.ts';
import { TreeListing } from './domain/tree-listing.ts';
import { FolderListing } from './domain/folder-listing.ts';
import { MergeService } from './domain/merge-service.ts';
import type { CommitRecorder } from './domain/commit-recorder.ts';
import { serveListBranches } from './handlers/list-branches.ts';
import { serveCreateBranch } from './handlers/create-branch.ts';
import { serveDeleteBranch } from './handlers/delete-branch.ts';
import { serveListLog } from './handlers/list-log.ts';
import { serveGetCommit } from './handlers/get-commit.ts';
import { serveListCommitFiles } from './handlers/list-commit-files.ts';
import { serveListTree } from './handlers/list-tree.ts';
import { serveListFolder } from './handlers/list-folder.ts';
import { serveMergeBranch } from './handlers/merge-branch.ts';

/**
 * The branches and their merges, the commit log, the project tree and its folders: their services and
 * RPCs. `onChanged` runs after a branch change committed, so the outbox relay publishes it at once;
 * merges record their commits through `recorder`, as every commit is recorded.
 */
export function serveBranches(deps: { db: Database; bus: Bus; cursorSecret: string; recorder: CommitRecorder; branches: BranchesRepository; onChanged: () => void }): void {
  const { db, bus } = deps;
  const cursors = new ListCursors(new CursorCodec(deps.cursorSecret));
  const repo = deps.branches;
  const branches = new BranchService({ db, branches: repo, cursors, onChanged: deps.onChanged });
  serveListBranches(bus, branches);
  serveCreateBranch(bus, branches);
  serveDeleteBranch(bus, branches);
  serveMergeBranch(bus, new MergeService({ db, bus, branches: repo, merges: new MergeRepository(), recorder: deps.recorder }));
  const log = new LogService({ db, log: new LogRepository(), cursors });
  serveListLog(bus, log);
  serveGetCommit(bus, log);
  serveListCommitFiles(bus, log);
  serveListTree(bus, new TreeListing({ db, pages: new TreePagesRepository(), cursors }));
  serveListFolder(bus, new FolderListing({ db, pages: new FolderPagesRepository(), cursors }));
}
