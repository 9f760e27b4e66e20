import { randomUUID } from 'node:crypto';
import { errors, type AppError } from '@lode/errors';
import { normalizePath, type Actor, type ReplyOf, type upload } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import type { FilesRepository, ReservationInput } from '../repo/files-repo.ts';
import type { MultipartRepository } from '../repo/multipart-repo.ts';
import { uploadUrlTtlSeconds, validateEntries } from './initiate-entries.ts';
import { BatchConfirmer, type ConfirmOutcome } from './batch-confirmer.ts';
import type { ConfirmBody } from './confirm-entries.ts';
import { MultipartUploads, type NewMultipartEntry } from './multipart-uploads.ts';
import type { QuotaService } from './quota-service.ts';

/** What initiating one file came to: an upload form (single PUT or parts), a dedup form, or a failure of that entry alone. */
export type InitiateOutcome = upload.UploadForm | upload.MultipartForm | upload.DedupForm | { path: string; failure: AppError };

/** Every object of a project is stored under this prefix, so that purging the project finds them all. */
export function projectKeyPrefix(projectId: string): string {
  return `p/${projectId}/`;
}

export function storageKeyFor(projectId: string, uploadId: string): string {
  return `${projectKeyPrefix(projectId)}u/${uploadId}`;
}

/** The upload flow: reserve a version, let the client PUT, confirm. */
export class UploadService {
  readonly #db: Database;
  readonly #files: FilesRepository;
  readonly #storage: BlobStorage;
  readonly #confirmer: BatchConfirmer;
  readonly #multipart: MultipartUploads;
  readonly #quotas: QuotaService;

  constructor(deps: { db: Database; files: FilesRepository; multipart: MultipartRepository; storage: BlobStorage; quotas: QuotaService }) {
    this.#db = deps.db;
    this.#files = deps.files;
    this.#storage = deps.storage;
    this.#quotas = deps.quotas;
    this.#multipart = new MultipartUploads(deps);
    this.#confirmer = new BatchConfirmer({ ...deps, multipart: this.#multipart });
  }

  /** A single initiate is a batch of one whose failure is the call's error (413, 400, 409). */
  async initiate(actor: Actor, file: unknown): Promise<upload.UploadForm | upload.MultipartForm | upload.DedupForm> {
    const [result] = await this.initiateBatch(actor, [file]);
    if (!result) throw new Error('initiate produced no result');
    if ('failure' in result) throw result.failure;
    return result;
  }

  /**
   * One database round trip for the whole batch's reservations; each entry succeeds or fails on its
   * own. A multipart entry that re-initiates its uploader's open reservation resumes it instead (its
   * bytes were counted against the quota when it began); an entry whose bytes would pass the
   * project's quota or its org's is refused.
   */
  async initiateBatch(actor: Actor, files: readonly unknown[]): Promise<InitiateOutcome[]> {
    const { valid: entries, invalid } = validateEntries(files);
    const results = new Array<InitiateOutcome>(files.length);
    for (const entry of invalid) results[entry.index] = { path: entry.path, failure: entry.error };
    const resumed = await this.#multipart.resume(actor, entries);
    for (const [index, form] of resumed) results[index] = form;
    const fresh = entries.filter((entry) => !resumed.has(entry.index));
    const refused = await this.#quotas.refusals(actor, fresh);
    for (const entry of fresh) {
      const failure = refused.get(entry.index);
      if (failure) results[entry.index] = { path: entry.path, failure };
    }
    const valid = fresh.filter((entry) => !refused.has(entry.index));
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

    const multipart: NewMultipartEntry[] = [];
    await Promise.all(
      valid.map(async (entry, i) => {
        const row = byKey.get(entry.pathKey);
        const reservation = reservations[i];
        if (!row) throw new Error(`reservation for ${entry.path} missing`);
        if (!row.reserved) {
          results[entry.index] = { path: entry.path, failure: errors.pathCaseConflict(entry.path, row.existing_path) };
        } else if (row.dedup) {
          results[entry.index] = { path: entry.path, fileId: row.file_id, version: row.version, dedup: true };
        } else if (entry.multipart) {
          multipart.push({
            entry: { ...entry, multipart: entry.multipart },
            reservationId: reservation.uploadId,
            fileId: row.file_id,
            version: row.version,
            storageKey: reservation.storageKey,
            expiresInSeconds: ttls[i],
          });
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
            requiredHeaders: signed.headers as upload.RequiredHeaders,
          };
        }
      }),
    );
    const forms = await this.#multipart.begin(multipart);
    multipart.forEach(({ entry }, i) => (results[entry.index] = forms[i]));
    return results;
  }

  /** The resume endpoint: the parts the store holds of an open multipart upload, and URLs for the rest. */
  async parts(actor: Actor, fileId: string, version: number): Promise<upload.MultipartForm> {
    return this.#multipart.parts(actor, fileId, version);
  }

  /** A single confirm is a batch of one whose failure is the call's error (404, 409, 422). */
  async confirm(actor: Actor, body: ConfirmBody): Promise<{ confirmed: true; version: number }> {
    const [result] = await this.confirmBatch(actor, [body]);
    if (!result) throw new Error('confirm produced no result');
    if ('failure' in result) throw result.failure;
    return { confirmed: true, version: result.version };
  }

  /**
   * Confirms reservations: each object must exist with the declared size and SHA-256, then its
   * file's tip advances from version-1 to version. A repeated confirm of the same reservation
   * answers as the first did; each entry succeeds or fails on its own.
   */
  async confirmBatch(actor: Actor, files: readonly unknown[]): Promise<ConfirmOutcome[]> {
    return this.#confirmer.confirm(actor, files);
  }

  /** The files of these paths, made where a path has none yet; an invalid path fails the call. */
  async ensureFiles(projectId: string, paths: readonly string[]): Promise<ReplyOf<typeof upload.ensureFiles>> {
    const normalized = paths.map((raw) => {
      const path = normalizePath(raw);
      if (!('key' in path)) throw path;
      return path;
    });
    const distinct = [...new Map(normalized.map((path) => [path.key, { path: path.path, pathKey: path.key }])).values()];
    const rows = new Map((await this.#files.ensureFiles(this.#db, projectId, distinct)).map((row) => [row.path_key, row]));
    return {
      files: normalized.map(({ key }) => {
        const row = rows.get(key);
        if (!row) throw new Error(`ensure_files returned no file for ${key}`);
        return { fileId: row.id, path: row.path };
      }),
    };
  }

  /** The lookup a commit's checks need, for the commit and lock services: paths and confirmed versions, as columns in request order. */
  async resolve(projectId: string, fileIds: readonly string[], versions: readonly (number | null)[] | undefined): Promise<upload.ResolveReply> {
    return this.#files.resolve(this.#db, projectId, fileIds, versions);
  }
}
