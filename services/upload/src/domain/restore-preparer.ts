import { assertUniqueFileIds, type Actor, type upload } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { BlobStorage, ObjectInfo } from '@lode/storage';
import type { FilesRepository } from '../repo/files-repo.ts';

type Target = { fileId: string; toVersion: number };
type Unrestorable = upload.UnrestorableReason;
type PrepareReply = { created: (Target & { version: number })[]; skipped: (Target & { reason: Unrestorable })[] };

/**
 * The upload service's half of a restore: for each target, a new version pointing at the target's
 * stored object, once per (restore, file). Versions are this service's to number, so restore asks
 * here rather than writing them itself; the restore service commits what it gets back.
 */
export class RestorePreparer {
  readonly #db: Database;
  readonly #files: FilesRepository;
  readonly #storage: BlobStorage;

  constructor(deps: { db: Database; files: FilesRepository; storage: BlobStorage }) {
    this.#db = deps.db;
    this.#files = deps.files;
    this.#storage = deps.storage;
  }

  async prepare(actor: Actor, restoreId: string, targets: readonly Target[]): Promise<PrepareReply> {
    assertUniqueFileIds(
      targets.map((t) => t.fileId),
      'restore',
    );
    // A retry of the same restore: what the first attempt made is the answer for those files.
    const made = new Map((await this.#files.restoreVersions(this.#db, actor.projectId, restoreId)).map((v) => [v.fileId, v.version]));
    const fresh = targets.filter((t) => !made.has(t.fileId));
    const reasons = await this.#unrestorable(actor.projectId, fresh);
    const restorable = fresh.filter((t) => !reasons.has(t.fileId));
    if (restorable.length > 0) {
      const versions = { projectId: actor.projectId, restoreId, uploaderId: actor.userId, uploaderName: actor.userName, targets: restorable };
      // The objects were checked before (#unrestorable), so no storage call waits inside the transaction.
      const created = await this.#db.transaction(async (tx) => {
        await this.#files.lockFiles(
          tx,
          actor.projectId,
          restorable.map((t) => t.fileId),
        );
        return this.#files.insertRestoreVersions(tx, versions);
      });
      for (const v of created) made.set(v.fileId, v.version);
    }
    return {
      created: targets.flatMap((t) => {
        const version = made.get(t.fileId);
        return version === undefined ? [] : [{ ...t, version }];
      }),
      // A target checked restorable whose version was obliterated before the transaction got to it
      // made nothing: its version is no longer there.
      skipped: targets.flatMap((t) => {
        const reason = reasons.get(t.fileId) ?? (made.has(t.fileId) ? undefined : 'version_not_found');
        return reason === undefined ? [] : [{ ...t, reason }];
      }),
    };
  }

  /** Files not in the project, versions not confirmed, and content no longer in storage. */
  async #unrestorable(projectId: string, targets: readonly Target[]): Promise<Map<string, Unrestorable>> {
    const reasons = new Map<string, Unrestorable>();
    if (targets.length === 0) return reasons;
    const resolved = await this.#files.resolve(
      this.#db,
      projectId,
      targets.map((t) => t.fileId),
      targets.map((t) => t.toVersion),
    );
    const { sha256s, sizes, storageKeys } = resolved.versions;
    const versions = targets.flatMap((t, i) => {
      const [sha256, size, storageKey] = [sha256s[i], sizes[i], storageKeys[i]];
      if (resolved.paths[i] === null) reasons.set(t.fileId, 'not_found');
      else if (resolved.versions.ids[i] === null) reasons.set(t.fileId, 'version_not_found');
      return sha256 === null || size === null || storageKey === null ? [] : [{ fileId: t.fileId, sha256, size, storageKey }];
    });
    // Dedup shares objects between versions: each object is checked once, all in one batch that the
    // driver answers from listings where that is cheaper than a HEAD per object.
    const keys = [...new Set(versions.map((v) => v.storageKey))];
    const found = await this.#storage.headMany(keys);
    const stored = new Map(keys.map((key, i) => [key, found[i]]));
    for (const v of versions) if (!intact(stored.get(v.storageKey) ?? null, v)) reasons.set(v.fileId, 'blob_missing');
    return reasons;
  }
}

/**
 * Content whose object is gone, or no longer has the recorded size or (where the driver verified it)
 * SHA-256, cannot be restored: a teammate must never download bytes that differ from the API's hash.
 */
function intact(info: ObjectInfo | null, expected: { sha256: string; size: number }): boolean {
  return info !== null && info.size === expected.size && (info.verifiedSha256 === undefined || info.verifiedSha256 === expected.sha256);
}
