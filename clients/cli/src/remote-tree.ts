import path from 'node:path';
import type { Change, SyncRow, UploadedFile } from '@lode/sdk';
import { readJsonFile, writeJsonFile } from './json-file.ts';
import { STATE_DIR, type Workspace } from './workspace.ts';

/** A live file of the branch as the server last told this workspace: path, file id, version, SHA-256, size, commit. */
export type RemoteFile = [path: string, fileId: string, version: number, sha256: string, size: number, commitSeq: number];

/**
 * The branch's live files as of commit `seq`, keyed by path key (NFC, lower case: what names one
 * file to the project). Only the server's side: local edits, pulls, reverts and resolves never
 * change it, and a push's own commit comes back as a change. A status asks the server only what
 * changed since `seq` (GET /changes) and compares the rest locally. `generation` names the branch's
 * incarnation, so a branch deleted and created again is never diffed against the old one's tree.
 */
export interface RemoteTree {
  format: typeof FORMAT;
  server: string;
  projectId: string;
  branch: string;
  generation: string;
  seq: number;
  files: Record<string, RemoteFile>;
}

const FORMAT = 1;

function treeFile(workspace: Workspace): string {
  return path.join(workspace.root, STATE_DIR, 'remote-tree.json');
}

/** Where a record is valid: the same server, project and branch. */
export interface TreeScope {
  server: string;
  projectId: string;
  branch: string;
}

/** The record for `scope`, or undefined when there is none, it is unreadable, or it is another's: then a status compares in full. */
export async function loadRemoteTree(workspace: Workspace, scope: TreeScope): Promise<RemoteTree | undefined> {
  const tree = await readJsonFile<Partial<RemoteTree> | null>(treeFile(workspace), null).catch(() => null);
  if (!tree || tree.format !== FORMAT || typeof tree.files !== 'object' || tree.files === null) return undefined;
  if (!Number.isSafeInteger(tree.seq) || (tree.seq as number) < 0 || typeof tree.generation !== 'string') return undefined;
  return recordsScope(tree as RemoteTree, scope) ? (tree as RemoteTree) : undefined;
}

function recordsScope(tree: RemoteTree, scope: TreeScope): boolean {
  return tree.server === scope.server && tree.projectId === scope.projectId && tree.branch === scope.branch;
}

/** A new record of the branch's files as of commit `seq`. */
export function newRemoteTree(scope: TreeScope, generation: string, seq: number, files: Record<string, RemoteFile>): RemoteTree {
  return { format: FORMAT, ...scope, generation, seq, files };
}

export async function saveRemoteTree(workspace: Workspace, tree: RemoteTree): Promise<void> {
  await writeJsonFile(treeFile(workspace), tree);
}

/** Applies a page of changes in order: a later row of a file supersedes an earlier one. True when any file changed. */
export function applyChanges(files: Record<string, RemoteFile>, changes: readonly Change[]): boolean {
  for (const change of changes) {
    const key = change.path.toLowerCase();
    if (change.status === 'live' && change.version !== null && change.sha256 !== null && change.size !== null) {
      files[key] = [change.path, change.fileId, change.version, change.sha256, change.size, change.commitSeq];
    } else {
      delete files[key];
    }
  }
  return changes.length > 0;
}

/**
 * The branch's live files from a full comparison's rows: every file listed or remote-only that the
 * branch holds, keyed as the server matches paths. `localHash`: the listed hash of a local path,
 * which an up_to_date row does not repeat on the wire in every client.
 */
export function treeFromRows(rows: readonly SyncRow[], localHash: (path: string) => string | undefined): Record<string, RemoteFile> {
  const files: Record<string, RemoteFile> = {};
  for (const row of rows) {
    if (row.fileId === null || row.remoteVersion === null || row.remoteCommitSeq === null || row.remoteSize === null) continue;
    const sha256 = row.remoteSha256 ?? (row.status === 'up_to_date' ? localHash(row.path) : undefined);
    if (sha256 === undefined) continue;
    files[row.path.toLowerCase()] = [row.path, row.fileId, row.remoteVersion, sha256, row.remoteSize, row.remoteCommitSeq];
  }
  return files;
}

/**
 * After this workspace's own commit to the recorded branch: when it is the commit right after the
 * record's (commit numbers are the project's, so nothing else came between), the branch is the
 * record plus what it committed, and the record moves to it without asking. Otherwise the next
 * status brings the commit in as changes. `known`: the record as this command already holds it
 * (its status's), which spares reading it again.
 */
export async function recordOwnCommit(
  workspace: Workspace,
  scope: TreeScope,
  commitSeq: number,
  committed: { uploads: readonly UploadedFile[]; deletes: readonly { path: string }[] },
  known?: RemoteTree,
): Promise<void> {
  const tree = known && recordsScope(known, scope) ? known : await loadRemoteTree(workspace, scope);
  if (!tree || tree.seq !== commitSeq - 1) return;
  for (const u of committed.uploads) tree.files[u.path.toLowerCase()] = [u.path, u.fileId, u.version, u.sha256, u.size, commitSeq];
  for (const d of committed.deletes) delete tree.files[d.path.toLowerCase()];
  tree.seq = commitSeq;
  await saveRemoteTree(workspace, tree);
}
