import type { Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import { instruments, observeGauges, type Instruments, type Logger } from '@lode/telemetry';
import type { CollectableObject, CollectableRepository, MarkPosition } from '../repo/collectable-repo.ts';

export interface ObjectCollectorOptions {
  /** How long a mark stands before its object may be swept. */
  graceMs: number;
  batchSize?: number;
}

/** What one run did: marks found still referenced, objects swept, and objects (with their bytes) deleted from storage. */
export interface CollectionRun {
  kept: number;
  swept: number;
  deleted: number;
  freedBytes: number;
}

type Counter = ReturnType<Instruments['meter']['createCounter']>;
let counters: { meter: Instruments['meter']; objects: Counter; bytes: Counter } | undefined;

/** The collector's progress series, bound to the process's meter (re-created if metrics started after first use). */
function collectionMetrics(): { objects: Counter; bytes: Counter } {
  const { meter } = instruments();
  if (counters?.meter !== meter) {
    counters = {
      meter,
      objects: meter.createCounter('lode.gc.objects', {
        description: 'Marked objects the collector handled, by outcome: kept (referenced again), swept, deleted',
      }),
      bytes: meter.createCounter('lode.gc.freed_bytes', { description: 'Bytes of objects the collector deleted from storage' }),
    };
  }
  return counters;
}

/**
 * Garbage collection of objects nothing refers to any more (docs/storage.md): mark, wait, sweep.
 * Obliterations mark the objects they leave unreferenced, in their own transaction. Once a mark is
 * older than the grace, a sweep locks the object's blob row (SKIP LOCKED: a confirm holding it is
 * never waited for, the object is tried next run), checks in a fresh statement that no live
 * version, Git LFS pin or open dedup reservation refers to it, and only then removes the blob row,
 * so no initiate can answer dedup for it any more. A dedup confirm locks that row FOR SHARE before
 * recording its version and fails cleanly when it is gone, so no version ever points at a deleted
 * object. Objects leave storage after that transaction commits, in batches, and their marks last.
 * Replicas run it at once without taking the same rows.
 */
export class ObjectCollector {
  readonly #db: Database;
  readonly #repo: CollectableRepository;
  readonly #storage: BlobStorage;
  readonly #logger: Logger;
  readonly #graceMs: number;
  readonly #batchSize: number;

  constructor(deps: { db: Database; collectable: CollectableRepository; storage: BlobStorage; logger: Logger }, options: ObjectCollectorOptions) {
    this.#db = deps.db;
    this.#repo = deps.collectable;
    this.#storage = deps.storage;
    this.#logger = deps.logger;
    this.#graceMs = options.graceMs;
    this.#batchSize = options.batchSize ?? 500;
  }

  /** Sweeps every mark due at `now`, then deletes every swept object, batch by batch. */
  async runOnce(now = Date.now()): Promise<CollectionRun> {
    const before = new Date(now - this.#graceMs);
    const run: CollectionRun = { kept: 0, swept: 0, deleted: 0, freedBytes: 0 };
    let after: MarkPosition | null = null;
    for (;;) {
      const batch = await this.#sweepBatch(before, after);
      run.kept += batch.kept;
      run.swept += batch.swept;
      if (batch.last === null || batch.taken < this.#batchSize) break;
      after = batch.last;
    }
    for (;;) {
      const deleted = await this.#deleteBatch();
      run.deleted += deleted.objects;
      run.freedBytes += deleted.bytes;
      if (deleted.objects < this.#batchSize) break;
    }
    if (run.swept + run.deleted + run.kept > 0) this.#logger.info(run, 'collected unreferenced objects');
    return run;
  }

  /**
   * One batch of due marks: each kept (referenced again: unmarked), left (busy, or reserved for a
   * dedup confirm), or swept. No storage call inside: the blob rows it locks are held for a few
   * statements only.
   */
  async #sweepBatch(before: Date, after: MarkPosition | null): Promise<{ taken: number; kept: number; swept: number; last: MarkPosition | null }> {
    return this.#db.transaction(async (tx) => {
      const due = await this.#repo.lockDue(tx, before, after, this.#batchSize);
      const last = due.at(-1);
      if (!last) return { taken: 0, kept: 0, swept: 0, last: null };
      const { busy } = await this.#repo.lockBlobs(tx, due);
      const free = due.filter((o) => !busy.has(o.storageKey));
      const references = new Map((await this.#repo.references(tx, free)).map((r) => [r.storageKey, r]));
      const kept = free.filter((o) => references.get(o.storageKey)?.live || references.get(o.storageKey)?.pinned);
      const sweepable = free.filter((o) => {
        const refs = references.get(o.storageKey);
        return refs !== undefined && !refs.live && !refs.pinned && !refs.reserved;
      });
      await this.#repo.unmark(
        tx,
        kept.map((o) => o.storageKey),
      );
      await this.#repo.sweep(tx, sweepable);
      const metrics = collectionMetrics();
      metrics.objects.add(kept.length, { outcome: 'kept' });
      metrics.objects.add(sweepable.length, { outcome: 'swept' });
      return { taken: due.length, kept: kept.length, swept: sweepable.length, last: { markedAt: last.markedAt, storageKey: last.storageKey } };
    });
  }

  /**
   * Deletes a batch of swept objects from storage, then their marks. The storage call runs inside
   * the transaction on purpose: it holds only these marks' row locks, which nothing but the
   * collector takes, so another replica skips them instead of deleting them twice at once.
   * Deleting an object already gone is harmless, so a run that dies here is simply repeated.
   */
  async #deleteBatch(): Promise<{ objects: number; bytes: number }> {
    return this.#db.transaction(async (tx) => {
      const swept: CollectableObject[] = await this.#repo.lockSwept(tx, this.#batchSize);
      if (swept.length === 0) return { objects: 0, bytes: 0 };
      const keys = swept.map((o) => o.storageKey);
      await this.#storage.delete(keys);
      await this.#repo.forget(tx, keys);
      const bytes = swept.reduce((sum, o) => sum + o.size, 0);
      const metrics = collectionMetrics();
      metrics.objects.add(swept.length, { outcome: 'deleted' });
      metrics.bytes.add(bytes);
      return { objects: swept.length, bytes };
    });
  }

  /** Gauges read at each scrape: marked objects waiting (and their bytes), swept objects still to delete. */
  observeGauges(): () => void {
    const gauges = {
      marked: { name: 'lode.gc.marked_objects', description: 'Objects marked unreferenced, waiting out the grace before the sweep' },
      markedBytes: { name: 'lode.gc.marked_bytes', description: 'Bytes of the objects marked unreferenced' },
      swept: { name: 'lode.gc.swept_objects', description: 'Objects swept whose deletion from storage is still to do' },
    };
    return observeGauges(gauges, async (observe) => {
      const backlog = await this.#repo.backlog(this.#db);
      observe('marked', backlog.marked);
      observe('markedBytes', backlog.markedBytes);
      observe('swept', backlog.swept);
    });
  }
}
