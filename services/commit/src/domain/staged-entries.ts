import { pathKey, type commit } from '@lode/contracts';
import type { StagedEntry } from '../repo/drafts-repo.ts';
import type { Resolution } from './commit-plan.ts';

/**
 * A staging call's entries as the draft keeps them, with what the upload service resolved (entries
 * that passed checkResolved): the path and its key, and the version's metadata for add and modify.
 */
export function stagedEntries(entries: commit.EntryColumns, resolved: Resolution): StagedEntry[] {
  const v = resolved.versions;
  return entries.fileIds.map((fileId, i): StagedEntry => {
    const path = resolved.paths[i] ?? '';
    const version = entries.versions[i];
    const set = version !== null;
    return {
      fileId,
      action: entries.actions[i],
      version,
      path,
      // The same function as every other path key (never SQL's lower()), so keys match.
      pathKey: pathKey(path),
      versionId: set ? v.ids[i] : null,
      sha256: set ? v.sha256s[i] : null,
      size: set ? v.sizes[i] : null,
      storageKey: set ? v.storageKeys[i] : null,
      uploaderId: set ? v.uploaderIds[i] : null,
      uploaderName: set ? v.uploaderNames[i] : null,
      versionCreatedAt: set ? v.createdAts[i] : null,
    };
  });
}
