import { errors, type AppError } from '@lode/errors';
import type { Actor } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import type { FilesRepository, NamedUpload, NewVersion, UploadRow } from '../repo/files-repo.ts';
import { validateConfirmEntries, type ConfirmBody } from './confirm-entries.ts';
import { ObjectVerifier } from './stored-content.ts';
import type { MultipartUploads } from './multipart-uploads.ts';

/** What confirming one entry came to: its version, or a failure of that entry alone. */
export type ConfirmOutcome = { fileId: string; version: number; confirmed: true } | { fileId: string | null; version: number | null; failure: AppError };

interface Pending {
  index: number;
  body: ConfirmBody;
  reservation: UploadRow & { multipart: boolean };
}

/**
 * Confirms many reservations with every check of a single confirm, set-based: one statement finds the
 * reservations, the objects are checked in one call to storage (ObjectVerifier), and
 * one transaction records every version. Entries are isolated: each succeeds or fails on its own.
 */
export class BatchConfirmer {
  readonly #db: Database;
  readonly #files: FilesRepository;
  readonly #verifier: ObjectVerifier;
  readonly #multipart: MultipartUploads;

  constructor(deps: { db: Database; files: FilesRepository; storage: BlobStorage; multipart: MultipartUploads }) {
    this.#db = deps.db;
    this.#files = deps.files;
    this.#verifier = new ObjectVerifier(deps.storage);
    this.#multipart = deps.multipart;
  }

  async confirm(actor: Actor, raw: readonly unknown[]): Promise<ConfirmOutcome[]> {
    const { valid, invalid } = validateConfirmEntries(raw);
    const results = new Array<ConfirmOutcome>(raw.length);
    for (const entry of invalid) results[entry.index] = { fileId: entry.fileId, version: entry.version, failure: entry.error };
    const fail = (entry: { index: number; body: ConfirmBody }, failure: AppError) => {
      results[entry.index] = { fileId: entry.body.fileId, version: entry.body.version, failure };
    };
    const succeed = (entry: { index: number; body: ConfirmBody }) => {
      results[entry.index] = { fileId: entry.body.fileId, version: entry.body.version, confirmed: true };
    };

    const reservations =
      valid.length === 0
        ? []
        : await this.#files.findReservations(
            this.#db,
            actor.projectId,
            valid.map(({ body }) => ({ ...body, storageKey: body.dedup ? null : (body.storageKey ?? null) })),
          );
    const found: Pending[] = [];
    valid.forEach((entry, i) => {
      const reservation = reservations[i];
      const mismatch = reservationMismatch(entry.body, reservation);
      if (mismatch) fail(entry, mismatch);
      // A repeated confirm of the same reservation answers as the first did.
      else if (reservation?.confirmed) succeed(entry);
      else if (reservation) found.push({ ...entry, reservation });
    });
    const pending = await this.#currentObjects(actor.projectId, found, (entry) => fail(entry, contentCollected()));

    const completed = await this.#completeParts(pending);
    const whole = pending.filter((entry, i) => {
      const failure = completed[i];
      if (failure) fail(entry, failure);
      return !failure;
    });
    const stored = await this.#verifyObjects(whole);
    const verified = whole.filter((entry, i) => {
      const failure = stored[i];
      if (failure) fail(entry, failure);
      return !failure;
    });
    const outcomes = await this.#record(actor, verified);
    verified.forEach((entry, i) => {
      const outcome = outcomes[i];
      if (outcome === 'confirmed') succeed(entry);
      else if (outcome === 'gone') fail(entry, errors.notFound('Upload reservation (expired and collected; initiate again)'));
      else if (outcome === 'collected') fail(entry, contentCollected());
      else fail(entry, errors.versionConflict(entry.reservation.file_id, entry.reservation.version));
    });
    return results;
  }

  /**
   * Dedup entries pointed at the object their content has now: a reservation names the object its
   * content had at initiate, which the content store may have replaced since (a new upload of
   * content whose object was marked for collection). Content the store no longer holds fails
   * (`collected`); the others are verified and recorded on the current object.
   */
  async #currentObjects(projectId: string, entries: readonly Pending[], collected: (entry: Pending) => void): Promise<Pending[]> {
    const dedups = entries.filter((e) => e.reservation.dedup);
    if (dedups.length === 0) return [...entries];
    const objects = await this.#files.blobKeys(
      this.#db,
      projectId,
      dedups.map((e) => e.reservation),
    );
    return entries.flatMap((entry) => {
      const r = entry.reservation;
      if (!r.dedup) return [entry];
      const key = objects.get(contentKey(r));
      if (key === undefined) {
        collected(entry);
        return [];
      }
      return [{ ...entry, reservation: { ...r, storage_key: key } }];
    });
  }

  /** Multipart reservations joined into their objects first, from the parts the store holds; each entry's failure, or undefined. */
  async #completeParts(pending: readonly Pending[]): Promise<(AppError | undefined)[]> {
    const multipart = pending.filter(({ reservation }) => reservation.multipart);
    if (multipart.length === 0) return [];
    const failures = await this.#multipart.complete(multipart.map(({ reservation }) => reservation));
    const failureOf = new Map(multipart.map(({ reservation }, i) => [reservation.id, failures[i]]));
    return pending.map(({ reservation }) => failureOf.get(reservation.id));
  }

  /**
   * Each entry's object checked as the single confirm checks it, all in one verification. Dedup
   * entries share their blob's object: each object is verified once, whatever the number of entries naming it.
   */
  async #verifyObjects(pending: readonly Pending[]): Promise<(AppError | undefined)[]> {
    if (pending.length === 0) return [];
    const byKey = new Map(pending.map(({ reservation: r }) => [r.storage_key, { storageKey: r.storage_key, sha256: r.sha256, size: r.size }]));
    const objects = [...byKey.values()];
    const failures = await this.#verifier.verify(objects);
    const failureOf = new Map(objects.map((object, i) => [object.storageKey, failures[i]]));
    return pending.map(({ reservation: r }) => failureOf.get(r.storage_key));
  }

  /**
   * Records the verified entries in one transaction. The reservations are locked first, so the
   * collector cannot remove them meanwhile, then the files, both in id order so that batches sharing
   * rows queue instead of deadlocking. A reservation gone meanwhile was either recorded by another
   * confirm of it (confirmed) or collected (gone); a file whose tip moved is a version conflict. A
   * dedup entry records the object its content has now, under a shared lock of its blob row; content
   * the object collector removed meanwhile cannot be confirmed as a dedup (collected): the client
   * initiates again, and uploads the bytes.
   */
  async #record(actor: Actor, entries: readonly Pending[]): Promise<('confirmed' | 'gone' | 'collected' | 'conflict')[]> {
    if (entries.length === 0) return [];
    return this.#db.transaction(async (tx) => {
      const present = await this.#files.lockReservations(
        tx,
        entries.map((e) => e.reservation.id),
      );
      const reservedNow = entries.filter((e) => present.has(e.reservation.id));
      const vanished = entries.filter((e) => !present.has(e.reservation.id));
      const dedups = reservedNow.filter((e) => e.reservation.dedup);
      const objects =
        dedups.length === 0
          ? new Map<string, string>()
          : await this.#files.shareBlobs(
              tx,
              actor.projectId,
              dedups.map((e) => e.reservation),
            );
      // A dedup whose content's object is no longer the one verified (collected, or replaced) is not recorded.
      const stillStored = ({ reservation: r }: Pending) => !r.dedup || objects.get(contentKey(r)) === r.storage_key;
      const reserved = reservedNow.filter(stillStored);
      await this.#files.lockFiles(
        tx,
        actor.projectId,
        reserved.map((e) => e.reservation.file_id),
      );
      const versions = reserved.map((entry): NewVersion => {
        const r = entry.reservation;
        return {
          fileId: r.file_id,
          version: r.version,
          sha256: r.sha256,
          size: r.size,
          storageKey: r.storage_key,
          uploaderId: actor.userId,
          uploaderName: actor.userName,
          uploadId: r.id,
          origin: r.dedup ? 'dedup' : 'upload',
        };
      });
      const recorded = reserved.length === 0 ? new Set<string>() : await this.#files.recordVersions(tx, actor.projectId, versions);
      const recordedBefore =
        vanished.length === 0
          ? new Set<string>()
          : await this.#files.confirmedUploads(
              tx,
              actor.projectId,
              vanished.map(({ reservation: r }) => ({ id: r.id, fileId: r.file_id, version: r.version })),
            );
      return entries.map((entry) => {
        const r = entry.reservation;
        if (!present.has(r.id)) return recordedBefore.has(r.id) ? 'confirmed' : 'gone';
        if (!stillStored(entry)) return 'collected';
        return recorded.has(r.id) ? 'confirmed' : 'conflict';
      });
    });
  }
}

/** A dedup's content the store no longer holds: the client initiates again and uploads the bytes. */
function contentCollected(): AppError {
  return errors.notFound('Deduplicated content (no longer stored; initiate again and upload the bytes)');
}

const contentKey = (content: { sha256: string; size: number }) => `${content.sha256}:${content.size}`;

/** The single confirm's checks of an entry against the reservation it names. */
function reservationMismatch(body: ConfirmBody, reservation: NamedUpload | undefined): AppError | undefined {
  if (!reservation) return errors.notFound('Upload reservation');
  if (reservation.file_id !== body.fileId || reservation.version !== body.version) {
    return errors.validation('fileId and version do not match the reservation for this storageKey');
  }
  if (reservation.sha256 !== body.sha256 || reservation.size !== body.size) {
    return errors.contentMismatch('sha256 and size must match the values given at initiate');
  }
  return undefined;
}
