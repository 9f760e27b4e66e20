import type { Database, Queryable } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';

/**
 * One kind of reservation (file uploads, plugin publishes, Git LFS uploads): its expired, never-confirmed rows, locked
 * until the transaction ends, and their removal. A dedup reservation points at a blob others use.
 */
export interface ExpiringReservations {
  lockExpiredReservations(tx: Queryable, before: Date, limit: number): Promise<{ id: string; storage_key: string; dedup: boolean }[]>;
  deleteReservations(tx: Queryable, ids: readonly string[]): Promise<void>;
}

export interface CollectorOptions {
  /** How long after its URL expired a reservation is kept (a PUT begun before expiry may still be running). */
  graceMs: number;
  batchSize?: number;
}

/**
 * Garbage collection of uploads (file uploads, plugin publishes, Git LFS uploads) that were reserved and never
 * confirmed. Nothing confirmed is ever touched: only rows still in state `reserved`, whose keys no
 * version or blob refers to.
 */
export class ReservationCollector {
  readonly #db: Database;
  readonly #kinds: readonly ExpiringReservations[];
  readonly #storage: BlobStorage;
  readonly #logger: Logger;
  readonly #graceMs: number;
  readonly #batchSize: number;

  constructor(deps: { db: Database; kinds: readonly ExpiringReservations[]; storage: BlobStorage; logger: Logger }, options: CollectorOptions) {
    this.#db = deps.db;
    this.#kinds = deps.kinds;
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
    return total;
  }

  /**
   * Removes up to a batch of expired reservations with their objects. The objects are deleted inside
   * the transaction, while it holds the rows' locks: a confirm of one of them waits (or, once the
   * rows are gone, finds nothing) instead of confirming a version whose object is being deleted.
   * Objects go first: if deleting the rows then fails, the next run deletes the (already missing)
   * objects again, which is harmless; rows deleted first would leave objects nothing points to.
   */
  async #collectBatch(kind: ExpiringReservations, before: Date): Promise<number> {
    return this.#db.transaction(async (tx) => {
      const expired = await kind.lockExpiredReservations(tx, before, this.#batchSize);
      if (expired.length === 0) return 0;
      // A dedup reservation points at a confirmed blob that others use: only its row goes.
      await this.#storage.delete(expired.filter((r) => !r.dedup).map((r) => r.storage_key));
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
