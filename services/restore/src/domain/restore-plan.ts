import { createHash } from 'node:crypto';
import type { commit, restore, upload } from '@lode/contracts';

type Target = restore.RestoreTarget;

/** What a restore decided once its versions exist: kept with the request, so a retry commits exactly this. */
export interface RestorePlan {
  commit: commit.CommitBody;
  restored: restore.Restored[];
  skipped: restore.Skipped[];
}

/**
 * Fingerprint of a restore request for idempotency: a retry must name the same files and target
 * versions in the same order. Built from the parsed body, so JSON formatting does not matter.
 */
export function restoreRequestHash(targets: readonly Target[]): string {
  return createHash('sha256')
    .update(JSON.stringify(targets.map((t) => [t.fileId, t.toVersion])))
    .digest('hex');
}

const SKIP_MESSAGES: Record<restore.SkipCode, (toVersion: number) => string> = {
  // The same words for a file of another project as for one that never existed: nothing about other projects leaks.
  not_found: () => 'File not found',
  version_not_found: (v) => `Version ${v} of this file does not exist`,
  already_current: (v) => `The file's committed content is already that of version ${v}`,
  blob_missing: (v) => `The content of version ${v} is missing from storage`,
};

/**
 * The skips known before any version is made, from the upload service's files and confirmed
 * versions and main's tree. A target whose content main already holds (and has not deleted) is
 * skipped: a new version of the same bytes would change nothing but the number.
 */
export function triage(
  targets: readonly Target[],
  resolved: { files: readonly { fileId: string }[]; versions: readonly upload.ResolvedVersion[] },
  tree: ReadonlyMap<string, commit.TreeState>,
): Map<string, restore.SkipCode> {
  const inProject = new Set(resolved.files.map((f) => f.fileId));
  const target = new Map(resolved.versions.map((v) => [v.fileId, v]));
  const skips = new Map<string, restore.SkipCode>();
  for (const t of targets) {
    const version = target.get(t.fileId);
    const current = tree.get(t.fileId);
    if (!inProject.has(t.fileId)) skips.set(t.fileId, 'not_found');
    else if (!version) skips.set(t.fileId, 'version_not_found');
    else if (current && !current.deleted && current.sha256 === version.sha256 && current.size === version.size) skips.set(t.fileId, 'already_current');
  }
  return skips;
}

/**
 * The restore commit: every target that got a new version, in request order, `add` when main lacks
 * the file or deleted it (the restore brings it back) and `modify` otherwise; the rest skipped.
 */
export function planRestore(
  targets: readonly Target[],
  skips: ReadonlyMap<string, restore.SkipCode>,
  created: readonly { fileId: string; version: number }[],
  tree: ReadonlyMap<string, commit.TreeState>,
  paths: ReadonlyMap<string, string>,
): RestorePlan {
  const newVersion = new Map(created.map((c) => [c.fileId, c.version]));
  const restored = targets.flatMap((t) => {
    const version = newVersion.get(t.fileId);
    return version === undefined ? [] : [{ target: t, version }];
  });
  return {
    commit: {
      message: restoreMessage(
        restored.map((r) => r.target),
        paths,
      ),
      fileVersions: restored.map(({ target, version }) => ({
        fileId: target.fileId,
        version,
        action: tree.get(target.fileId)?.deleted === false ? 'modify' : 'add',
      })),
    },
    restored: restored.map(({ target, version }) => ({ fileId: target.fileId, newVersion: version })),
    skipped: targets.flatMap((t) => {
      const code = newVersion.has(t.fileId) ? undefined : skips.get(t.fileId);
      return code === undefined ? [] : [{ fileId: t.fileId, toVersion: t.toVersion, code, message: SKIP_MESSAGES[code](t.toVersion) }];
    }),
  };
}

function restoreMessage(restored: readonly Target[], paths: ReadonlyMap<string, string>): string {
  const [only] = restored;
  if (restored.length === 1 && only) return `Restore ${paths.get(only.fileId) ?? only.fileId} to version ${only.toVersion}`;
  return `Restore ${restored.length} files`;
}
