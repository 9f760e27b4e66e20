import { errors, type AppError } from '@lode/errors';
import type { Actor, upload } from '@lode/contracts';
import type { Database } from '@lode/db';
import { mapConcurrently, type BlobStorage } from '@lode/storage';
import type { MultipartRepository, MultipartTerms, OpenMultipart } from '../repo/multipart-repo.ts';
import { uploadUrlTtlSeconds, type ValidEntry } from './initiate-entries.ts';
import { matchParts, partList, promisedParts } from './multipart-parts.ts';

/** A multipart entry whose reservation was just made, to begin at the store. */
export interface NewMultipartEntry {
  entry: ValidEntry & { multipart: upload.MultipartRequest };
  reservationId: string;
  fileId: string;
  version: number;
  storageKey: string;
  expiresInSeconds: number;
}

/** A reservation about to be confirmed, as far as its parts are concerned. */
export interface CompletingReservation {
  id: string;
  storage_key: string;
  size: number;
}

/** Store calls made at once for a batch's multipart entries (creating uploads, listing parts). */
const STORE_CALLS_IN_FLIGHT = 8;

/**
 * Multipart uploads: begun at initiate (a store upload per reservation, the promised parts kept with
 * it), resumed by a client that lost its place (the parts the store holds, URLs for the others), and
 * completed by confirm from the store's own part list once every promised part is there as promised.
 */
export class MultipartUploads {
  readonly #db: Database;
  readonly #repo: MultipartRepository;
  readonly #storage: BlobStorage;

  constructor(deps: { db: Database; multipart: MultipartRepository; storage: BlobStorage }) {
    this.#db = deps.db;
    this.#repo = deps.multipart;
    this.#storage = deps.storage;
  }

  /**
   * Forms for entries that re-initiate an open reservation of theirs (same path, content and part
   * size, the same MD5 for every part, by the same uploader), by entry index; the others need new
   * reservations. A reservation the store no longer has an upload for (completed by a confirm that
   * failed, or aborted) is not resumed.
   */
  async resume(actor: Actor, entries: readonly ValidEntry[]): Promise<Map<number, upload.MultipartForm>> {
    const multipart = entries.filter((e): e is ValidEntry & { multipart: upload.MultipartRequest } => e.multipart !== undefined);
    if (multipart.length === 0) return new Map();
    const lookups = multipart.map((e) => ({ pathKey: e.pathKey, sha256: e.sha256, size: e.size, partSize: e.multipart.partSize }));
    const open = new Map((await this.#repo.findOpen(this.#db, actor.projectId, actor.userId, lookups)).map((row) => [row.pathKey, row]));
    const candidates = multipart.flatMap((entry) => {
      const row = open.get(entry.pathKey);
      const samePromise =
        row && row.partMd5s.length === entry.multipart.parts.length && row.partMd5s.every((md5, i) => md5 === entry.multipart.parts[i].contentMd5);
      return samePromise ? [{ entry, row }] : [];
    });
    const forms = await mapConcurrently(candidates, STORE_CALLS_IN_FLIGHT, ({ entry, row }) => this.#resumedForm(entry.path, row));
    const resumed = candidates.flatMap(({ entry, row }, i) => {
      const form = forms[i];
      return form ? [{ index: entry.index, reservationId: row.reservationId, size: row.size, form }] : [];
    });
    await this.#extend(resumed);
    return new Map(resumed.map(({ index, form }) => [index, form]));
  }

  /** The resume endpoint: where the uploader's open multipart reservation of this version stands. */
  async parts(actor: Actor, fileId: string, version: number): Promise<upload.MultipartForm> {
    const row = await this.#repo.findOpenOf(this.#db, actor.projectId, actor.userId, fileId, version);
    const form = row && (await this.#resumedForm(row.path, row));
    if (!row || !form) throw errors.notFound('Open multipart upload of this file version');
    await this.#extend([{ reservationId: row.reservationId, size: row.size }]);
    return form;
  }

  /** Creates each entry's upload at the store and records its promise; answers each entry's form, in order. */
  async begin(entries: readonly NewMultipartEntry[]): Promise<upload.MultipartForm[]> {
    if (entries.length === 0) return [];
    const uploadIds = await mapConcurrently(entries, STORE_CALLS_IN_FLIGHT, (e) => this.#storage.createMultipart(e.storageKey));
    await this.#repo.insert(
      this.#db,
      entries.map((e, i) => ({
        reservationId: e.reservationId,
        uploadId: uploadIds[i],
        partSize: e.entry.multipart.partSize,
        partMd5s: e.entry.multipart.parts.map((part) => part.contentMd5),
      })),
    );
    return Promise.all(
      entries.map(async (e, i) => {
        const terms = { uploadId: uploadIds[i], partSize: e.entry.multipart.partSize, partMd5s: e.entry.multipart.parts.map((part) => part.contentMd5) };
        const multipart = await this.#form(e.storageKey, e.entry.size, terms, [], e.expiresInSeconds);
        return { path: e.entry.path, fileId: e.fileId, version: e.version, storageKey: e.storageKey, multipart };
      }),
    );
  }

  /**
   * Completes the multipart reservations among `reservations` from the store's part list, before
   * their objects are verified as every upload's is; answers each reservation's failure, or
   * undefined (also for one that is not multipart, and for one a confirm completed before: the
   * store then has no open upload and the object's check decides). A promised part missing is an
   * upload still under way; one held with other bytes is content that cannot match.
   */
  async complete(reservations: readonly CompletingReservation[]): Promise<(AppError | undefined)[]> {
    const terms = await this.#repo.termsOf(
      this.#db,
      reservations.map((r) => r.id),
    );
    return mapConcurrently(reservations, STORE_CALLS_IN_FLIGHT, async (reservation) => {
      const promise = terms.get(reservation.id);
      if (!promise) return undefined;
      const stored = await this.#storage.listParts(reservation.storage_key, promise.uploadId);
      if (!stored) return undefined;
      const expected = promisedParts(reservation.size, promise.partSize, promise.partMd5s);
      const { held, lacking, missing } = matchParts(expected, stored);
      if (missing.length > 0) return errors.uploadIncomplete(`The store does not hold ${partList(missing)} yet`);
      if (lacking.length > 0) return errors.contentMismatch(`The store holds other bytes for ${partList(lacking)} than were promised at initiate`);
      await this.#storage.completeMultipart(reservation.storage_key, promise.uploadId, held);
      return undefined;
    });
  }

  /** The form of an open reservation from what the store holds of it; null when the store has no such upload any more. */
  async #resumedForm(path: string, row: OpenMultipart): Promise<upload.MultipartForm | null> {
    const stored = await this.#storage.listParts(row.storageKey, row.uploadId);
    if (!stored) return null;
    const multipart = await this.#form(row.storageKey, row.size, row, stored, uploadUrlTtlSeconds(row.size));
    return { path, fileId: row.fileId, version: row.version, storageKey: row.storageKey, multipart };
  }

  /** URLs for the promised parts the store does not hold as promised; the held ones listed beside them. */
  async #form(
    storageKey: string,
    size: number,
    terms: MultipartTerms,
    stored: readonly upload.StoredPart[],
    expiresInSeconds: number,
  ): Promise<upload.MultipartUpload> {
    const promised = promisedParts(size, terms.partSize, terms.partMd5s);
    const { held, lacking } = matchParts(promised, stored);
    const parts = await Promise.all(
      lacking.map(async (partNumber) => {
        const part = promised[partNumber - 1];
        const signed = await this.#storage.presignPart({
          key: storageKey,
          uploadId: terms.uploadId,
          partNumber,
          size: part.size,
          contentMd5: terms.partMd5s[partNumber - 1],
          expiresInSeconds,
        });
        return { partNumber, uploadUrl: signed.url, requiredHeaders: signed.headers as upload.RequiredHeaders };
      }),
    );
    return { uploadId: terms.uploadId, partSize: terms.partSize, parts, uploaded: held };
  }

  /** A resumed reservation stays open as long as its fresh URLs are valid. */
  async #extend(resumed: readonly { reservationId: string; size: number }[]): Promise<void> {
    const now = Date.now();
    await this.#repo.extend(
      this.#db,
      resumed.map(({ reservationId, size }) => ({ reservationId, expiresAt: new Date(now + uploadUrlTtlSeconds(size) * 1000) })),
    );
  }
}
