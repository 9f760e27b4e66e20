import type { Change, SyncRow, UploadedFile } from '@lode/sdk';
import type { RemoteFile, RemoteScope } from './index-format.ts';
import type { Table } from './workspace-index.ts';
import type { Workspace } from './workspace.ts';

export type { RemoteFile } from './index-format.ts';

/**
 * The branch's live files as of commit `seq`, keyed by path key (NFC, lower case: what names one
 * file to the project). Only the server's side: local edits, pulls, reverts and resolves never
 * change it, and a push's own commit comes back as a change. A status asks the server only what
 * changed since `seq` (GET /changes) and compares the rest locally. `generation` names the branch's
 * incarnation, so a branch deleted and created again is never diffed against the old one's tree.
 * Kept in the workspace's index (workspace-index.ts): `files` changes it in memory, and the
 * workspace's save writes what changed.
 */
export interface RemoteTree extends RemoteScope {
  files: Table<RemoteFile>;
}

/** Where a record is valid: the same server, project and branch. */
export interface TreeScope {
  server: string;
  projectId: string;
  branch: string;
}

/** The record for `scope`, or undefined when there is none, it is unreadable, or it is another's: then a status compares in full. */
export function loadRemoteTree(workspace: Workspace, scope: TreeScope): RemoteTree | undefined {
  const recorded = workspace.index.scope;
  return recorded && recordsScope(recorded, scope) ? { ...recorded, files: workspace.index.remote } : undefined;
}

function recordsScope(tree: TreeScope, scope: TreeScope): boolean {
  return tree.server === scope.server && tree.projectId === scope.projectId && tree.branch === scope.branch;
}

/** Replaces the workspace's record with the branch's files as of commit `seq`. */
export function replaceRemoteTree(workspace: Workspace, scope: TreeScope, generation: string, seq: number, files: Iterable<RemoteFile>): RemoteTree {
  const { server, projectId, branch } = scope;
  workspace.index.replaceRemote({ server, projectId, branch, generation, seq }, files);
  return { server, projectId, branch, generation, seq, files: workspace.index.remote };
}

/** Notes where the record now stands, its files having changed in place. */
export function saveRemoteTree(workspace: Workspace, tree: RemoteTree): void {
  const { server, projectId, branch, generation, seq } = tree;
  workspace.index.setScope({ server, projectId, branch, generation, seq });
}

/** Applies a page of changes in order: a later row of a file supersedes an earlier one. True when any file changed. */
export function applyChanges(files: Table<RemoteFile>, changes: readonly Change[]): boolean {
  for (const change of changes) {
    const key = change.path.toLowerCase();
    if (change.status === 'live' && change.version !== null && change.sha256 !== null && change.size !== null) {
      files.set(key, [change.path, change.fileId, change.version, change.sha256, change.size, change.commitSeq]);
    } else {
      files.delete(key);
    }
  }
  return changes.length > 0;
}

/**
 * The branch's live files from a full comparison's rows: every file listed or remote-only that the
 * branch holds. `localHash`: the listed hash of a local path, which an up_to_date row does not
 * repeat on the wire in every client.
 */
export function treeFromRows(rows: readonly SyncRow[], localHash: (path: string) => string | undefined): RemoteFile[] {
  const files: RemoteFile[] = [];
  for (const row of rows) {
    if (row.fileId === null || row.remoteVersion === null || row.remoteCommitSeq === null || row.remoteSize === null) continue;
    const sha256 = row.remoteSha256 ?? (row.status === 'up_to_date' ? localHash(row.path) : undefined);
    if (sha256 === undefined) continue;
    files.push([row.path, row.fileId, row.remoteVersion, sha256, row.remoteSize, row.remoteCommitSeq]);
  }
  return files;
}

/**
 * After this workspace's own commit to the recorded branch: when it is the commit right after the
 * record's (commit numbers are the project's, so nothing else came between), the branch is the
 * record plus what it committed, and the record moves to it without asking. Otherwise the next
 * status brings the commit in as changes. Saved with the workspace.
 */
export function recordOwnCommit(
  workspace: Workspace,
  scope: TreeScope,
  commitSeq: number,
  committed: { uploads: readonly UploadedFile[]; deletes: readonly { path: string }[] },
): void {
  const tree = loadRemoteTree(workspace, scope);
  if (!tree || tree.seq !== commitSeq - 1) return;
  for (const u of committed.uploads) tree.files.set(u.path.toLowerCase(), [u.path, u.fileId, u.version, u.sha256, u.size, commitSeq]);
  for (const d of committed.deletes) tree.files.delete(d.path.toLowerCase());
  tree.seq = commitSeq;
  saveRemoteTree(workspace, tree);
}
