import { branches, commit, download, drafts } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { CommitService } from './domain/commit-service.ts';
import type { DraftService } from './domain/draft-service.ts';
import type { HistoryService } from './domain/history-service.ts';
import type { DownloadService } from './domain/download-service.ts';
import type { TreeService } from './domain/tree-service.ts';
import type { BranchService } from './domain/branch-service.ts';
import type { MergeService } from './domain/merge-service.ts';
import type { LogService } from './domain/log-service.ts';
import type { TreeListing } from './domain/tree-listing.ts';
import type { FolderListing } from './domain/folder-listing.ts';

/** The domain objects the commit service's RPCs call, passed by name: ten read poorly as positional parameters. */
export interface CommitDomain {
  commitService: CommitService;
  draftService: DraftService;
  historyService: HistoryService;
  downloadService: DownloadService;
  treeService: TreeService;
  branchService: BranchService;
  mergeService: MergeService;
  logService: LogService;
  treeListing: TreeListing;
  folderListing: FolderListing;
}

/** The commit service's table: each contract it answers and the domain call that answers it. */
export function commitRpcs(domain: CommitDomain): Rpc[] {
  const { commitService, draftService, historyService, downloadService, treeService, branchService, mergeService, logService, treeListing, folderListing } =
    domain;
  return [
    rpc(commit.create, ({ actor, commit: body, idempotencyKey, kind }) => commitService.create(actor, body, idempotencyKey, kind)),
    rpc(commit.listVersions, ({ actor, fileId, cursor, limit }) => historyService.list(actor, fileId, cursor, limit)),
    rpc(download.urls, async ({ actor, branch, files }) => ({ results: await downloadService.urls(actor, branch, files) })),
    rpc(commit.latestSequence, ({ projectId }) => treeService.latestSequence(projectId)),
    rpc(commit.treeStates, async ({ projectId, fileIds }) => ({ files: await treeService.mainStates(projectId, fileIds) })),
    rpc(commit.pinnedVersions, async ({ projectId, fileIds }) => ({ versions: await treeService.pinnedVersions(projectId, fileIds) })),
    rpc(drafts.create, ({ actor, message, branch }) => draftService.create(actor, { message, branch })),
    rpc(drafts.stage, ({ actor, draftId, entries }) => draftService.stage(actor, draftId, entries)),
    rpc(drafts.get, ({ actor, draftId }) => draftService.get(actor, draftId)),
    rpc(drafts.finalize, ({ actor, draftId, idempotencyKey }) => draftService.commit(actor, draftId, idempotencyKey)),
    rpc(drafts.remove, ({ actor, draftId }) => draftService.remove(actor, draftId)),
    rpc(branches.list, ({ actor, cursor, limit }) => branchService.list(actor, cursor, limit)),
    rpc(branches.create, ({ actor, name, from }) => branchService.create(actor, name, from)),
    rpc(branches.remove, ({ actor, name }) => branchService.remove(actor, name)),
    rpc(branches.merge, ({ actor, source, into, message, resolutions }) => mergeService.merge(actor, { source, into, message, resolutions })),
    rpc(commit.listLog, ({ actor, branch, cursor, limit }) => logService.list(actor, branch, cursor, limit)),
    rpc(commit.getCommit, ({ actor, commitId }) => logService.get(actor, commitId)),
    rpc(commit.listCommitFiles, ({ actor, commitId, cursor, limit }) => logService.files(actor, commitId, cursor, limit)),
    rpc(commit.listTree, ({ actor, branch, prefix, cursor, limit }) => treeListing.list(actor, branch, prefix, cursor, limit)),
    rpc(commit.stats, ({ actor, branch }) => treeListing.stats(actor, branch)),
    rpc(commit.listFolder, ({ actor, branch, prefix, cursor, limit }) => folderListing.list(actor, branch, prefix, cursor, limit)),
  ];
}
