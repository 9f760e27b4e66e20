import type { sync } from '@lode/contracts';

/** A path's state on the branch, as the read model's tree holds it. */
export interface RemoteFile {
  fileId: string;
  /** Last version committed; a deleted file keeps the one it had before its deletion. */
  version: number | null;
  sha256: string | null;
  size: number | null;
  /** The commit that last changed the file, its deletion included. */
  commitSeq: number;
  deleted: boolean;
}

export interface Comparison {
  local: { sha256: string; baseVersion?: number };
  /** Undefined when the path was never committed on the branch's lineage. */
  remote: RemoteFile | undefined;
  /** Whether the local content is that of a version the path had on the branch's lineage. */
  contentKnown: boolean;
}

/**
 * The status of one listed file: the table in docs/api.md (Sync), in the same order. `conflict`
 * needs the client's baseVersion: without it, new local content is `modified`, so a client sending
 * only path and hash still gets every other status right.
 */
export function decideStatus({ local, remote, contentKnown }: Comparison): sync.SyncStatus {
  if (!remote) return 'local_only';
  if (remote.deleted) {
    if (contentKnown) return 'deleted_remote';
    return local.baseVersion === undefined ? 'modified' : 'conflict';
  }
  if (local.sha256 === remote.sha256) return 'up_to_date';
  if (contentKnown) return 'outdated';
  // New local content: a conflict only if the remote moved on since the version the client started from.
  const remoteMovedOn = local.baseVersion !== undefined && remote.version !== null && local.baseVersion < remote.version;
  return remoteMovedOn ? 'conflict' : 'modified';
}

/** Response columns with no row yet. */
export function emptyColumns(): sync.SyncColumns {
  return { statuses: [], fileIds: [], remoteVersions: [], remoteSha256s: [], remoteCommitSeqs: [], remoteSizes: [] };
}

/**
 * Appends a row: a deleted file names its id and the deleting commit, but has no remote content. An
 * up_to_date row leaves out the remote hash, which is the listed one (sync.syncColumnsSchema).
 */
export function appendRow(columns: sync.SyncColumns, status: sync.SyncStatus, remote: RemoteFile | undefined): void {
  const live = remote && !remote.deleted ? remote : undefined;
  columns.statuses.push(status);
  columns.fileIds.push(remote?.fileId ?? null);
  columns.remoteVersions.push(live?.version ?? null);
  columns.remoteSha256s.push(status === 'up_to_date' ? null : (live?.sha256 ?? null));
  columns.remoteCommitSeqs.push(remote?.commitSeq ?? null);
  columns.remoteSizes.push(live?.size ?? null);
}
