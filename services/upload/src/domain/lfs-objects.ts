import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import type { Actor, lfs } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import type { LfsRepository } from '../repo/lfs-repo.ts';
import { checkLfsEntries, contentKey, type LfsObjectRef } from './lfs-entries.ts';
import { uploadUrlTtlSeconds } from './initiate-entries.ts';
import type { ObjectVerifier } from './stored-content.ts';
import type { QuotaService } from './quota-service.ts';
import { storageKeyFor } from './upload-service.ts';

/** How long an LFS download action's URL is valid: as long as a Lode download link's. */
export const LFS_DOWNLOAD_TTL_SECONDS = 3600;

/**
 * The Git LFS transfer of the project's content store: downloads of what it holds, uploads of what it
 * lacks, and the verify that admits an upload into it. The store is the one Lode's own uploads
 * deduplicate against, so content pushed either way is never sent twice and never crosses projects.
 */
export class LfsObjects {
  readonly #db: Database;
  readonly #repo: LfsRepository;
  readonly #storage: BlobStorage;
  readonly #verifier: ObjectVerifier;
  readonly #quotas: QuotaService;

  constructor(deps: { db: Database; repo: LfsRepository; storage: BlobStorage; verifier: ObjectVerifier; quotas: QuotaService }) {
    this.#db = deps.db;
    this.#repo = deps.repo;
    this.#storage = deps.storage;
    this.#verifier = deps.verifier;
    this.#quotas = deps.quotas;
  }

  async batch(actor: Actor, operation: lfs.LfsOperation, raw: readonly unknown[]): Promise<{ objects: lfs.BatchObject[] }> {
    const { valid, invalid } = checkLfsEntries(operation, raw);
    const objects = new Array<lfs.BatchObject>(raw.length);
    for (const entry of invalid) objects[entry.index] = entry.object;
    if (valid.length > 0) {
      const answer = operation === 'download' ? await this.#downloads(actor, valid) : await this.#uploads(actor, valid);
      valid.forEach((ref, i) => (objects[ref.index] = answer[i]));
    }
    return { objects };
  }

  async #downloads(actor: Actor, refs: readonly LfsObjectRef[]): Promise<lfs.BatchObject[]> {
    const stored = new Map(
      (await this.#repo.storedBlobs(this.#db, actor.projectId, refs.map(asContent))).map((b) => [contentKey(b.sha256, b.size), b.storage_key]),
    );
    return Promise.all(
      refs.map(async ({ oid, size }): Promise<lfs.BatchObject> => {
        const key = stored.get(contentKey(oid, size));
        if (key === undefined) return { oid, size, refused: { reason: 'not_found', message: 'Object does not exist in this project' } };
        const url = await this.#storage.presignGet({ key, expiresInSeconds: LFS_DOWNLOAD_TTL_SECONDS });
        return { oid, size, download: { url, headers: {}, expiresInSeconds: LFS_DOWNLOAD_TTL_SECONDS } };
      }),
    );
  }

  /**
   * Content the store holds gets no action (dedup); the rest gets an upload whose URL signs its length
   * (and SHA-256 where the store checks it), on an upload row that its verify closes.
   */
  async #uploads(actor: Actor, refs: readonly LfsObjectRef[]): Promise<lfs.BatchObject[]> {
    const held = await this.#repo.storedBlobs(this.#db, actor.projectId, refs.map(asContent));
    // The push sends nothing for these, so its git history refers to them: they are never collected.
    await this.#repo.pinBlobs(this.#db, actor.projectId, held);
    const stored = new Set(held.map((b) => contentKey(b.sha256, b.size)));
    const lacking = new Map(refs.filter((ref) => !stored.has(contentKey(ref.oid, ref.size))).map((ref) => [contentKey(ref.oid, ref.size), ref]));
    // Objects to store count against the project's quota, as a Lode upload's bytes do.
    const refusals = await this.#quotas.refusals(
      actor,
      [...lacking.values()].map((ref) => ({ index: ref.index, sha256: ref.oid, size: ref.size })),
    );
    const missing = new Map([...lacking].filter(([, ref]) => !refusals.has(ref.index)));
    const now = Date.now();
    const opened =
      missing.size === 0
        ? []
        : await this.#repo.openUploads(
            this.#db,
            actor.projectId,
            actor.userId,
            [...missing.values()].map((ref) => {
              const id = randomUUID();
              const expiresAt = new Date(now + uploadUrlTtlSeconds(ref.size) * 1000).toISOString();
              return { id, sha256: ref.oid, size: ref.size, storageKey: storageKeyFor(actor.projectId, id), expiresAt };
            }),
          );
    const keys = new Map(opened.map((row) => [contentKey(row.sha256, row.size), row.storage_key]));
    const refusedContent = new Map([...lacking].flatMap(([content, ref]) => (refusals.has(ref.index) ? [[content, refusals.get(ref.index)!]] : [])));
    return Promise.all(
      refs.map(async ({ oid, size }): Promise<lfs.BatchObject> => {
        const refusal = refusedContent.get(contentKey(oid, size));
        if (refusal) return { oid, size, refused: { reason: 'quota_exceeded', message: refusal.message } };
        const key = keys.get(contentKey(oid, size));
        if (key === undefined) return { oid, size };
        const expiresInSeconds = uploadUrlTtlSeconds(size);
        const signed = await this.#storage.presignPut({ key, size, sha256: oid, expiresInSeconds });
        return { oid, size, upload: { url: signed.url, headers: signed.headers, expiresInSeconds } };
      }),
    );
  }

  /**
   * Admits an uploaded object into the store once its bytes hash to its oid. What is checked and
   * stored is the object frozen (BlobStorage.freeze): its PUT URL signed no MD5 and stays valid, so
   * on a store that does not enforce the signed SHA-256 the key it writes could change after the
   * check. Wrong bytes are deleted and a new batch hands the upload out again. Already stored:
   * answered as the first verify was; stored by another push meanwhile: this copy goes.
   */
  async verify(actor: Actor, object: { oid: string; size: number }): Promise<{ oid: string; size: number }> {
    if (await this.#isStored(actor.projectId, object)) return object;
    const upload = await this.#repo.findUpload(this.#db, actor.projectId, asContent(object));
    if (!upload) throw errors.notFound('Object (upload it through a batch upload action first)');
    const frozen = await this.#storage.freeze(upload.storage_key, storageKeyFor(actor.projectId, randomUUID()));
    if (frozen === null) throw errors.uploadIncomplete('The object has not been uploaded to storage yet');
    try {
      await this.#verifier.verifyOne({ storageKey: frozen, sha256: upload.sha256, size: upload.size });
    } catch (failure) {
      await this.#storage.delete([...new Set([upload.storage_key, frozen])]);
      throw failure;
    }
    const outcome = await this.#db.transaction(async (tx) => {
      if (!(await this.#repo.lockUpload(tx, upload.id))) return 'gone';
      return (await this.#repo.storeUpload(tx, actor.projectId, { ...upload, storage_key: frozen })) ? 'stored' : 'redundant';
    });
    await this.#storage.delete(unneeded(outcome, upload.storage_key, frozen));
    if (outcome === 'gone' && !(await this.#isStored(actor.projectId, object))) throw errors.notFound('Upload (expired and collected; push again)');
    return object;
  }

  async #isStored(projectId: string, object: { oid: string; size: number }): Promise<boolean> {
    return (await this.#repo.storedBlobs(this.#db, projectId, [asContent(object)])).length > 0;
  }
}

/**
 * The objects a verify leaves behind. Stored: the upload's key, when a copy holds its bytes. Stored by
 * another push meanwhile: the upload's key and any copy. Gone (collected with its object, or stored
 * by another verify of it, whose key may be the upload's): only a copy.
 */
function unneeded(outcome: 'stored' | 'redundant' | 'gone', uploadKey: string, frozen: string): string[] {
  if (frozen === uploadKey) return outcome === 'redundant' ? [uploadKey] : [];
  if (outcome === 'stored') return [uploadKey];
  return outcome === 'redundant' ? [uploadKey, frozen] : [frozen];
}

const asContent = ({ oid, size }: { oid: string; size: number }) => ({ sha256: oid, size });
