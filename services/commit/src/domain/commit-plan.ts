import { errors } from '@lode/errors';
import type { commit, upload } from '@lode/contracts';

/** A commit's entries as columns: entry i is fileIds[i], actions[i], versions[i] (null for a delete). */
export type Entries = Pick<commit.CommitColumns, 'fileIds' | 'actions' | 'versions'>;

/** What the upload service knows of the entries, aligned with them (upload.resolveVersions). */
export type Resolution = upload.ResolveReply;

/** The branch's current state of a file, as the tree holds it. */
export type TreeState = commit.TreeState;

/** One entry as it will be recorded: what changed, with the version's metadata when it is set. */
export interface PlannedEntry extends commit.CommittedEntry {
  /** The version's id, object and uploader, for add and modify; null for a delete. */
  versionId: string | null;
  storageKey: string | null;
  uploaderId: string | null;
  uploaderName: string | null;
  versionCreatedAt: string | null;
  /** For a delete, the tree keeps the last version's number, sha256 and size. */
  treeVersion: number;
  treeSha256: string;
  treeSize: number;
}

/**
 * Checks what the upload service knows: every file is in the project and every version it names is
 * confirmed. Throws one error naming every offending entry.
 */
export function checkResolved(entries: Entries, resolved: Resolution): void {
  // Every column answers every entry; a reply that does not is a contract broken, not a missing file.
  if (Object.values(resolved.versions).some((column) => column.length !== entries.fileIds.length) || resolved.paths.length !== entries.fileIds.length) {
    throw errors.internal();
  }
  const missing = entries.fileIds.filter((_, i) => resolved.paths[i] === null);
  if (missing.length > 0) throw errors.filesNotFound(missing);
  const unconfirmed = entries.fileIds.flatMap((fileId, i) => {
    const version = entries.versions[i];
    return version !== null && resolved.versions.ids[i] === null ? [{ fileId, version }] : [];
  });
  if (unconfirmed.length > 0) throw errors.versionNotConfirmed(unconfirmed);
}

/**
 * Checks the entries against the branch's tree and decides each recorded action. Versions only move
 * forward on a branch: committing a version not newer than the branch's (even of a deleted file)
 * would silently undo a teammate's commit, so it is refused; restore is the way back. Add and modify
 * both set a version; the recorded action follows the tree (add when the file is absent or deleted).
 * Expects entries that passed checkResolved.
 */
export function planEntries(entries: Entries, resolved: Resolution, tree: ReadonlyMap<string, TreeState>): PlannedEntry[] {
  const stale: { fileId: string; version: number; currentVersion: number }[] = [];
  const absent: string[] = [];
  const v = resolved.versions;
  const planned = entries.fileIds.map((fileId, i): PlannedEntry => {
    const current = tree.get(fileId);
    const path = resolved.paths[i] ?? '';
    const version = entries.versions[i];
    if (entries.actions[i] === 'delete' || version === null) {
      if (!current || current.deleted) absent.push(fileId);
      return {
        fileId,
        path,
        action: 'delete',
        version: null,
        sha256: null,
        size: null,
        versionId: null,
        storageKey: null,
        uploaderId: null,
        uploaderName: null,
        versionCreatedAt: null,
        treeVersion: current?.version ?? 0,
        treeSha256: current?.sha256 ?? '',
        treeSize: current?.size ?? 0,
      };
    }
    if (current && version <= current.version) stale.push({ fileId, version, currentVersion: current.version });
    const sha256 = v.sha256s[i] ?? '';
    const size = v.sizes[i] ?? 0;
    return {
      fileId,
      path,
      action: current && !current.deleted ? 'modify' : 'add',
      version,
      sha256,
      size,
      versionId: v.ids[i],
      storageKey: v.storageKeys[i],
      uploaderId: v.uploaderIds[i],
      uploaderName: v.uploaderNames[i],
      versionCreatedAt: v.createdAts[i],
      treeVersion: version,
      treeSha256: sha256,
      treeSize: size,
    };
  });
  if (stale.length > 0) throw errors.staleVersion(stale);
  if (absent.length > 0) throw errors.fileNotInBranch(absent);
  return planned;
}
