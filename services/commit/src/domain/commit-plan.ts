import { errors } from '@lode/errors';
import type { commit, upload } from '@lode/contracts';

type Resolved = upload.ResolvedVersion;

/** The branch's current state of a file, as the tree holds it. */
export type TreeState = commit.TreeState;

/** One entry as it will be recorded: what changed, with the version's metadata when it is set. */
export interface PlannedEntry extends commit.CommittedEntry {
  /** Set for add and modify; for a delete, the tree keeps the last version's sha256 and size. */
  resolved: Resolved | undefined;
  treeSha256: string;
  treeSize: number;
  treeVersion: number;
}

/**
 * Checks what the upload service knows: every file is in the project and every version it names is
 * confirmed. Throws one error naming every offending entry.
 */
export function checkResolved(
  entries: readonly commit.CommitEntryInput[],
  resolved: { files: { fileId: string; path: string }[]; versions: Resolved[] },
): { paths: Map<string, string>; versions: Map<string, Resolved> } {
  const paths = new Map(resolved.files.map((f) => [f.fileId, f.path]));
  const versions = new Map(resolved.versions.map((v) => [versionKey(v.fileId, v.version), v]));
  const missing = entries.filter((e) => !paths.has(e.fileId)).map((e) => e.fileId);
  if (missing.length > 0) throw errors.filesNotFound(missing);
  const unconfirmed = entries.flatMap((e) =>
    e.action !== 'delete' && !versions.has(versionKey(e.fileId, e.version)) ? [{ fileId: e.fileId, version: e.version }] : [],
  );
  if (unconfirmed.length > 0) throw errors.versionNotConfirmed(unconfirmed);
  return { paths, versions };
}

/**
 * Checks the entries against the branch's tree and decides each recorded action. Versions only move
 * forward on a branch: committing a version not newer than the branch's (even of a deleted file)
 * would silently undo a teammate's commit, so it is refused; restore is the way back. Add and modify
 * both set a version; the recorded action follows the tree (add when the file is absent or deleted).
 */
export function planEntries(
  entries: readonly commit.CommitEntryInput[],
  known: { paths: Map<string, string>; versions: Map<string, Resolved> },
  tree: Map<string, TreeState>,
): PlannedEntry[] {
  const stale: { fileId: string; version: number; currentVersion: number }[] = [];
  const absent: string[] = [];
  const planned = entries.map((entry): PlannedEntry => {
    const current = tree.get(entry.fileId);
    const path = known.paths.get(entry.fileId) ?? '';
    if (entry.action === 'delete') {
      if (!current || current.deleted) absent.push(entry.fileId);
      return {
        fileId: entry.fileId,
        path,
        action: 'delete',
        version: null,
        sha256: null,
        size: null,
        resolved: undefined,
        treeVersion: current?.version ?? 0,
        treeSha256: current?.sha256 ?? '',
        treeSize: current?.size ?? 0,
      };
    }
    if (current && entry.version <= current.version) stale.push({ fileId: entry.fileId, version: entry.version, currentVersion: current.version });
    const resolved = known.versions.get(versionKey(entry.fileId, entry.version));
    if (!resolved) throw new Error(`version ${entry.fileId}@${entry.version} was not checked`);
    return {
      fileId: entry.fileId,
      path,
      action: current && !current.deleted ? 'modify' : 'add',
      version: resolved.version,
      sha256: resolved.sha256,
      size: resolved.size,
      resolved,
      treeVersion: resolved.version,
      treeSha256: resolved.sha256,
      treeSize: resolved.size,
    };
  });
  if (stale.length > 0) throw errors.staleVersion(stale);
  if (absent.length > 0) throw errors.fileNotInBranch(absent);
  return planned;
}

function versionKey(fileId: string, version: number): string {
  return `${fileId}@${version}`;
}
