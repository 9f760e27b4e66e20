import { runPeriodically } from '@lode/runtime';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';
import type { FilesRepository } from '../repo/files-repo.ts';

export interface CollectorOptions {
  /** How long after its URL expired a reservation is kept (a PUT begun before expiry may still be running). */
  graceMs: number;
  batchSize?: number;
}

/**
 * Garbage collection of uploads that were reserved and never confirmed. Nothing confirmed is ever
 * touched: only rows still in state `reserved`, whose keys no version or blob refers to.
 */
export class ReservationCollector {
  readonly #repo: FilesRepository;
  readonly #storage: BlobStorage;
  readonly #logger: Logger;
  readonly #graceMs: number;
  readonly #batchSize: number;

  constructor(repo: FilesRepository, storage: BlobStorage, logger: Logger, options: CollectorOptions) {
    this.#repo = repo;
    this.#storage = storage;
    this.#logger = logger;
    this.#graceMs = options.graceMs;
    this.#batchSize = options.batchSize ?? 500;
  }

  /** Collects everything due now, batch by batch; returns how many reservations went. */
  async runOnce(now = Date.now()): Promise<number> {
    const before = new Date(now - this.#graceMs);
    let total = 0;
    for (;;) {
      const removed = await this.#repo.collectExpired(before, this.#batchSize, (keys) => this.#storage.delete(keys));
      total += removed;
      if (removed < this.#batchSize) break;
    }
    if (total > 0) this.#logger.info({ removed: total }, 'collected expired upload reservations');
    return total;
  }

  /** Runs periodically until the returned stop function is called; a failed run is logged and retried. */
  start(intervalMs: number): () => Promise<void> {
    const task = runPeriodically('reservation collection', intervalMs, this.#logger, () => this.runOnce());
    return () => task.stop();
  }
}
