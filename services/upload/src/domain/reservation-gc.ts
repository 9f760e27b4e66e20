import type { Database, Queryable } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';

/** An expired reservation: its object's key, whether that is a blob others use (dedup), and its store upload if it went up in parts. */
export interface ExpiredReservation {
  id: string;
  storage_key: string;
  dedup: boolean;
  multipart_upload_id?: string | null;
}

/**
 * One kind of reservation (file uploads, plugin publishes, Git LFS uploads): its expired, never-confirmed rows, locked
 * until the transaction ends, and their removal. A dedup reservation points at a blob others use.
 */
export interface ExpiringReservations {
  lockExpiredReservations(tx: Queryable, before: Date, limit: number): Promise<ExpiredReservation[]>;
  deleteReservations(tx: Queryable, ids: readonly string[]): Promise<void>;
}

/** Which store upload ids a reservation knows, for the sweep of uploads nothing knows. */
export interface KnownMultipartUploads {
  known(q: Queryable, uploadIds: readonly string[]): Promise<Set<string>>;
}

export interface CollectorOptions {
  /** How long after its URL expired a reservation is kept (a PUT begun before expiry may still be running). */
  graceMs: number;
  batchSize?: number;
}

/**
 * A store upload no reservation knows is aborted once it is this old at least: initiate creates the
 * upload a moment before it records it, and a younger one may be in that moment.
 */
export const ORPHAN_UPLOAD_AGE_MS = 60 * 60 * 1000;

/** Only uploads under the keys the upload service makes are ever aborted: a shared bucket's others are not ours. */
const OUR_UPLOAD_KEY = /^p\/[0-9a-f-]{36}\/u\/[0-9a-f-]{36}$/;

/**
 * Garbage collection of uploads (file uploads, plugin publishes, Git LFS uploads) that were reserved and never
 * confirmed. Nothing confirmed is ever touched: only rows still in state `reserved`, whose keys no
 * version or blob refers to, and the store's multipart uploads of those, or of no reservation at all.
 */
export class ReservationCollector {
  readonly #db: Database;
  readonly #kinds: readonly ExpiringReservations[];
  readonly #multipart: KnownMultipartUploads;
  readonly #storage: BlobStorage;
  readonly #logger: Logger;
  readonly #graceMs: number;
  readonly #batchSize: number;

  constructor(
    deps: { db: Database; kinds: readonly ExpiringReservations[]; multipart: KnownMultipartUploads; storage: BlobStorage; logger: Logger },
    options: CollectorOptions,
  ) {
    this.#db = deps.db;
    this.#kinds = deps.kinds;
    this.#multipart = deps.multipart;
    this.#storage = deps.storage;
    this.#logger = deps.logger;
    this.#graceMs = options.graceMs;
    this.#batchSize = options.batchSize ?? 500;
  }

  /** Collects everything due now, batch by batch; returns how many reservations went. */
  async runOnce(now = Date.now()): Promise<number> {
    const before = new Date(now - this.#graceMs);
    let total = 0;
    for (const kind of this.#kinds) {
      for (;;) {
        const removed = await this.#collectBatch(kind, before);
        total += removed;
        if (removed < this.#batchSize) break;
      }
    }
    if (total > 0) this.#logger.info({ removed: total }, 'collected expired upload reservations');
    const orphans = await this.#abortOrphans(new Date(now - Math.max(this.#graceMs, ORPHAN_UPLOAD_AGE_MS)));
    if (orphans > 0) this.#logger.info({ aborted: orphans }, 'aborted multipart uploads no reservation knows');
    return total + orphans;
  }

  /**
   * Aborts the store's multipart uploads begun before `before` that no reservation knows: a process
   * that died between creating one and recording it, or a reservation whose abort failed after its
   * row went. Replicas may sweep at once: aborting twice is harmless.
   */
  async #abortOrphans(before: Date): Promise<number> {
    let aborted = 0;
    for await (const page of this.#storage.listMultipartUploads(before)) {
      const ours = page.filter((upload) => OUR_UPLOAD_KEY.test(upload.key));
      const known = await this.#multipart.known(
        this.#db,
        ours.map((upload) => upload.uploadId),
      );
      const orphans = ours.filter((upload) => !known.has(upload.uploadId));
      await Promise.all(orphans.map((upload) => this.#storage.abortMultipart(upload.key, upload.uploadId)));
      aborted += orphans.length;
    }
    return aborted;
  }

  /**
   * Removes up to a batch of expired reservations with their objects. The objects are deleted inside
   * the transaction, while it holds the rows' locks: a confirm of one of them waits (or, once the
   * rows are gone, finds nothing) instead of confirming a version whose object is being deleted.
   * Objects (and the parts of uploads in parts) go first: if deleting the rows then fails, the next run deletes the (already missing)
   * objects again, which is harmless; rows deleted first would leave objects nothing points to.
   */
  async #collectBatch(kind: ExpiringReservations, before: Date): Promise<number> {
    return this.#db.transaction(async (tx) => {
      const expired = await kind.lockExpiredReservations(tx, before, this.#batchSize);
      if (expired.length === 0) return 0;
      // A dedup reservation points at a confirmed blob that others use: only its row goes.
      await this.#storage.delete(expired.filter((r) => !r.dedup).map((r) => r.storage_key));
      const multipart = expired.flatMap((r) => (r.multipart_upload_id ? [{ key: r.storage_key, uploadId: r.multipart_upload_id }] : []));
      await Promise.all(multipart.map((upload) => this.#storage.abortMultipart(upload.key, upload.uploadId)));
      await kind.deleteReservations(
        tx,
        expired.map((r) => r.id),
      );
      return expired.length;
    });
  }

  /** Runs periodically until the returned stop function is called; a failed run is logged and retried. */
  start(intervalMs: number): () => Promise<void> {
    const task = runPeriodically('reservation collection', intervalMs, this.#logger, () => this.runOnce());
    return () => task.stop();
  }
}
