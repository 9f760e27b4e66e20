import { randomUUID } from 'node:crypto';
import { chunk, type LodeClient, type SyncRow, type SyncStatus } from '@lode/sdk';
import { comparePaths, hashEntries, scanWorkspace, type HashedEntry } from './scan.ts';
import type { Workspace } from './workspace.ts';

/** The server's seven statuses, plus a file this workspace synced and has since deleted (push records the deletion). */
export type FileStatus = SyncStatus | 'deleted_local';

export const STATUS_ORDER: readonly FileStatus[] = ['conflict', 'modified', 'local_only', 'deleted_local', 'outdated', 'missing', 'deleted_remote', 'up_to_date'];

export interface StatusEntry {
  path: string;
  status: FileStatus;
  row: SyncRow;
  /** The file on disk, when there is one. */
  local?: HashedEntry;
}

export interface WorkspaceStatus {
  branch: string;
  latestCommitSeq: number;
  entries: StatusEntry[];
  /** Local files whose paths differ only in letter case: one file to the project (push refuses them). */
  caseCollisions: string[][];
  /** Downloads' temporary files on disk (scan.ts). */
  partials: string[];
}

/** A sync request holds at most this many files; more go as one session of batches. */
const SYNC_BATCH = 10_000;

/**
 * Scans and hashes the workspace (hash cache first) and asks the server how each file stands, with
 * the last synced version as `baseVersion`, so an edit on both sides reads as `conflict`.
 */
export async function workspaceStatus(client: LodeClient, workspace: Workspace, branch: string, signal?: AbortSignal): Promise<WorkspaceStatus> {
  const scanned = await scanWorkspace(workspace);
  const local = await hashEntries(workspace, scanned.files, signal);
  const byPath = new Map(local.map((e) => [e.path, e]));
  const files = local.map((e) => {
    const synced = workspace.state.files[e.path];
    return { path: e.path, sha256: e.digest.sha256, ...(synced ? { baseVersion: synced.version } : {}) };
  });
  const batches = files.length === 0 ? [[]] : chunk(files, SYNC_BATCH);
  const session = batches.length > 1 ? randomUUID() : undefined;
  const rows: SyncRow[] = [];
  let latestCommitSeq = 0;
  // Every batch but the last may go in any order; the last (includeRemoteOnly) must come after them all.
  for (const [index, batch] of batches.entries()) {
    const last = index === batches.length - 1;
    const answer = await client.sync(
      { files: batch, branch, includeRemoteOnly: last || undefined, session: session ? { id: session, batch: index } : undefined },
      { signal },
    );
    rows.push(...answer.files);
    latestCommitSeq = Math.max(latestCommitSeq, answer.latestCommitSeq);
  }
  const entries = rows.map((row): StatusEntry => {
    const synced = workspace.state.files[row.path];
    // Remote-only, synced here before at the version the server still has: deleted locally since.
    const deletedHere = row.status === 'missing' && synced !== undefined && synced.version === row.remoteVersion;
    return { path: row.path, status: deletedHere ? 'deleted_local' : row.status, row, local: byPath.get(row.path) };
  });
  return { branch, latestCommitSeq, entries, caseCollisions: caseCollisions(local.map((e) => e.path)), partials: scanned.partials };
}

/**
 * The groups of paths (NFC) that name one file to the project, which compares paths ignoring letter
 * case as the studios' Windows and macOS file systems do (docs/api.md, Paths), in path order.
 */
export function caseCollisions(paths: readonly string[]): string[][] {
  const byKey = new Map<string, string[]>();
  for (const p of paths) {
    const key = pathKey(p);
    const group = byKey.get(key);
    if (group) group.push(p);
    else byKey.set(key, [p]);
  }
  return [...byKey.values()]
    .filter((group) => group.length > 1)
    .map((group) => group.sort(comparePaths))
    .sort((a, b) => comparePaths(a[0], b[0]));
}

/** What names one file to the project: its NFC path ignoring letter case (docs/api.md, Paths). */
export function pathKey(nfcPath: string): string {
  return nfcPath.toLowerCase();
}

export function groupByStatus(entries: StatusEntry[]): Map<FileStatus, StatusEntry[]> {
  const groups = new Map<FileStatus, StatusEntry[]>();
  for (const status of STATUS_ORDER) groups.set(status, []);
  for (const entry of entries) groups.get(entry.status)?.push(entry);
  return groups;
}

/** Whether a project path is one of `scopes` or under one (no scopes: everything). */
export function inScope(projectPath: string, scopes: string[]): boolean {
  return scopes.length === 0 || scopes.some((s) => s === '' || projectPath === s || projectPath.startsWith(`${s.replace(/\/$/, '')}/`));
}
