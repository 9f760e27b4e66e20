import { randomUUID } from 'node:crypto';
import { errors, type AppError } from '@lode/errors';
import type { Actor, upload } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import type { FilesRepository, NewVersion, ReservationInput } from '../repo/files-repo.ts';
import { uploadUrlTtlSeconds, validateEntries } from './initiate-entries.ts';

/** What initiating one file came to: an upload form, a dedup form, or a failure of that entry alone. */
export type InitiateOutcome = upload.UploadForm | upload.DedupForm | { path: string; failure: AppError };
type ConfirmBody = { fileId: string; version: number; storageKey?: string | undefined; dedup?: boolean | undefined; sha256: string; size: number };

export function storageKeyFor(projectId: string, uploadId: string): string {
  return `p/${projectId}/u/${uploadId}`;
}

/** The upload flow of spec 3 and 4.3–4.5: reserve a version, let the client PUT, confirm. */
export class UploadService {
  readonly #db: Database;
  readonly #files: FilesRepository;
  readonly #storage: BlobStorage;

  constructor(deps: { db: Database; files: FilesRepository; storage: BlobStorage }) {
    this.#db = deps.db;
    this.#files = deps.files;
    this.#storage = deps.storage;
  }

  /** A single initiate is a batch of one whose failure is the call's error (413, 400, 409). */
  async initiate(actor: Actor, file: unknown): Promise<upload.UploadForm | upload.DedupForm> {
    const [result] = await this.initiateBatch(actor, [file]);
    if (!result) throw new Error('initiate produced no result');
    if ('failure' in result) throw result.failure;
    return result;
  }

  /** One database round trip for the whole batch; each entry succeeds or fails on its own. */
  async initiateBatch(actor: Actor, files: readonly unknown[]): Promise<InitiateOutcome[]> {
    const { valid, invalid } = validateEntries(files);
    const results = new Array<InitiateOutcome>(files.length);
    for (const entry of invalid) results[entry.index] = { path: entry.path, failure: entry.error };
    if (valid.length === 0) return results;

    const now = Date.now();
    const ttls = valid.map((entry) => uploadUrlTtlSeconds(entry.size));
    const reservations: ReservationInput[] = valid.map((entry, i) => {
      const uploadId = randomUUID();
      return {
        ...entry,
        uploadId,
        storageKey: storageKeyFor(actor.projectId, uploadId),
        expiresAt: new Date(now + ttls[i] * 1000).toISOString(),
      };
    });
    const rows = await this.#files.reserveBatch(this.#db, actor.projectId, actor.userId, reservations);
    const byKey = new Map(rows.map((row) => [row.path_key, row]));

    await Promise.all(
      valid.map(async (entry, i) => {
        const row = byKey.get(entry.pathKey);
        const reservation = reservations[i];
        if (!row) throw new Error(`reservation for ${entry.path} missing`);
        if (!row.reserved) {
          results[entry.index] = { path: entry.path, failure: errors.pathCaseConflict(entry.path, row.existing_path) };
        } else if (row.dedup) {
          results[entry.index] = { path: entry.path, fileId: row.file_id, version: row.version, dedup: true };
        } else {
          const signed = await this.#storage.presignPut({
            key: reservation.storageKey,
            size: entry.size,
            contentMd5: entry.contentMd5,
            sha256: entry.sha256,
            expiresInSeconds: ttls[i],
          });
          results[entry.index] = {
            path: entry.path,
            fileId: row.file_id,
            version: row.version,
            storageKey: reservation.storageKey,
            uploadUrl: signed.url,
            requiredHeaders: signed.headers as { 'Content-Length': string; 'Content-MD5': string },
          };
        }
      }),
    );
    return results;
  }

  /**
   * Confirms a reservation: the object must exist with the declared size, then the tip advances from
   * version-1 to version. A repeated confirm of the same reservation answers as the first did.
   */
  async confirm(actor: Actor, body: ConfirmBody): Promise<{ confirmed: true; version: number }> {
    const reservation = body.dedup
      ? await this.#files.findDedupUpload(this.#db, actor.projectId, body.fileId, body.version, body.sha256, body.size)
      : await this.#files.findUploadByKey(this.#db, actor.projectId, body.storageKey ?? '');
    if (!reservation) throw errors.notFound('Upload reservation');
    if (reservation.file_id !== body.fileId || reservation.version !== body.version) {
      throw errors.validation('fileId and version do not match the reservation for this storageKey');
    }
    if (reservation.sha256 !== body.sha256 || reservation.size !== body.size) {
      throw errors.contentMismatch('sha256 and size must match the values given at initiate');
    }
    if (reservation.state === 'confirmed') return { confirmed: true, version: reservation.version };

    const stored = await this.#storage.head(reservation.storage_key);
    if (!stored) throw errors.uploadIncomplete('The object has not been uploaded to storage yet');
    if (stored.size !== reservation.size) {
      throw errors.contentMismatch(`Stored object has ${stored.size} bytes, expected ${reservation.size}`);
    }
    // Integrity (docs/api.md): a version, and dedup of its content, exist only for bytes whose
    // SHA-256 is the recorded one. Drivers that verified on write say so; the others are read once.
    const actualSha256 = stored.verifiedSha256 ?? (await this.#storage.computeSha256(reservation.storage_key));
    if (actualSha256 !== reservation.sha256) {
      await this.#storage.delete([reservation.storage_key]);
      throw errors.contentMismatch('The uploaded bytes do not match the declared SHA-256; initiate and upload again');
    }

    const version: NewVersion = {
      projectId: actor.projectId,
      fileId: reservation.file_id,
      version: reservation.version,
      sha256: reservation.sha256,
      size: reservation.size,
      storageKey: reservation.storage_key,
      uploaderId: actor.userId,
      uploaderName: actor.userName,
      uploadId: reservation.id,
      origin: reservation.dedup ? 'dedup' : 'upload',
    };
    // The reservation is locked first, so the collector cannot remove it meanwhile; one already
    // confirmed (a repeated confirm racing this one) answers as confirmed again.
    const outcome = await this.#db.transaction(async (tx) => {
      const state = await this.#files.lockReservation(tx, version.uploadId);
      if (state !== 'reserved') return state ?? 'gone';
      return (await this.#files.recordVersion(tx, version)) ? 'confirmed' : 'conflict';
    });
    if (outcome === 'gone') throw errors.notFound('Upload reservation (expired and collected; initiate again)');
    if (outcome === 'conflict') throw errors.versionConflict(reservation.file_id, reservation.version);
    return { confirmed: true, version: reservation.version };
  }

  /** Spec 4.6's lookup for the commit and lock services: paths and confirmed versions, as columns in request order. */
  async resolve(projectId: string, fileIds: readonly string[], versions: readonly (number | null)[] | undefined): Promise<upload.ResolveReply> {
    return this.#files.resolve(this.#db, projectId, fileIds, versions);
  }
}
