import type { EventStream, OutgoingEvent } from '@lode/bus';
import type { Database, NamedStatement, Queryable } from '@lode/db';
import { runPeriodically, type PeriodicTask } from '@lode/runtime';
import { observeGauges, type Logger } from '@lode/telemetry';
import { kickDelay } from './relay-plan.ts';

export interface RelayOptions {
  /** How often the relay looks for unpublished events when nothing kicked it. */
  pollMs: number;
  /** How long published events are kept (for inspection) before they are deleted. */
  retentionMs: number;
  /** Events a batch reads at most. */
  batchSize?: number;
  /**
   * Payload bytes a batch reads at most, one event at least however large: a commit.created part is
   * about 512 KiB, so 200 of them would be 100 MB read, and parsed, at once.
   */
  batchBytes?: number;
}

// A relay run's statements, prepared once per connection: a run follows every event a service writes.
const RELAY_LOCK: NamedStatement = {
  name: 'outbox.relay_lock',
  text: `SELECT set_config('synchronous_commit', 'off', true), pg_try_advisory_xact_lock(hashtext('lode.outbox.' || current_schema())) AS ok`,
};

const MARK_PUBLISHED: NamedStatement = { name: 'outbox.mark_published', text: 'UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])' };

// A batch's statement: $1 the id after which it reads, $2 the batch's size, $3 its bytes.
const batchStatement = (which: 'published' | 'unpublished'): NamedStatement => ({
  name: `outbox.${which}_batch`,
  text: `WITH candidates AS (
     SELECT id, row_number() OVER (ORDER BY id) AS n, sum(octet_length(payload)) OVER (ORDER BY id) AS bytes
     FROM (
       SELECT id, payload FROM outbox
       WHERE ${which === 'published' ? 'published_at IS NOT NULL' : 'published_at IS NULL'} AND id > $1
       ORDER BY id LIMIT $2
     ) c
   )
   SELECT o.id, o.subject, o.event_id, o.payload, o.trace_context, (SELECT count(*) FROM candidates)::int AS candidates
   FROM candidates c JOIN outbox o ON o.id = c.id
   WHERE c.n = 1 OR c.bytes <= $3
   ORDER BY o.id`,
});
const BATCH = { published: batchStatement('published'), unpublished: batchStatement('unpublished') };

/** What one batch read: its rows, and whether the outbox had more of them than the batch took. */
interface Batch {
  rows: OutboxRow[];
  more: boolean;
}

interface OutboxRow {
  id: string;
  subject: string;
  event_id: string;
  payload: string;
  trace_context: Record<string, string> | null;
}

function toEvent(row: OutboxRow): OutgoingEvent {
  return { subject: row.subject, id: row.event_id, data: JSON.parse(row.payload) as unknown, traceContext: row.trace_context ?? undefined };
}

/**
 * Publishes the outbox in id order, at least once. One relay per schema publishes at a time (a
 * transaction-scoped advisory lock), so replicas cannot reorder a project's events; a relay that dies
 * after publishing but before marking leaves rows that the next run publishes again, which the
 * stream's duplicate window (same event id) and idempotent consumers absorb.
 */
export class OutboxRelay {
  readonly #db: Database;
  readonly #stream: EventStream;
  readonly #logger: Logger;
  readonly #options: Required<RelayOptions>;
  #task: PeriodicTask | undefined;
  #unobserve: (() => void) | undefined;
  #stopped = false;
  /** Runs in progress: the task's, and any a caller started with runOnce(). */
  #running = 0;
  /** When the last run that published something ended (performance.now()). */
  #busyRunEndedAt: number | undefined;
  /** A kick waits for its run: kicks meanwhile join it. */
  #kickPending = false;
  /** Cancels the timer of the pending kick's run. */
  #cancelKick: (() => void) | undefined;
  /** Resolved by stop(): ends a wait for the stream. */
  readonly #stopping = Promise.withResolvers<void>();

  constructor(db: Database, stream: EventStream, logger: Logger, options: RelayOptions) {
    this.#db = db;
    this.#stream = stream;
    this.#logger = logger;
    this.#options = { batchSize: 200, batchBytes: 8 * 1024 * 1024, ...options };
  }

  /**
   * Publishes everything unpublished now, or until the relay stops (what is left stays for the next
   * run, of this replica or another); returns how many events went out (0 if another relay holds the lock).
   */
  async runOnce(): Promise<number> {
    let total = 0;
    this.#running += 1;
    try {
      for (;;) {
        // Outside the batch's transaction: the wait for consumers can outlast idle_in_transaction_session_timeout.
        await Promise.race([this.#stream.readyToPublish(), this.#stopping.promise]);
        if (this.#stopped) return total;
        const { published, more } = await this.#publishBatch();
        total += published;
        if (!more) return total;
      }
    } finally {
      this.#running -= 1;
      if (total > 0) this.#busyRunEndedAt = performance.now();
      if (this.#kickPending) this.#scheduleKickedRun();
    }
  }

  /**
   * Deletes published events older than the retention. Housekeeping, not the relay's hot path: every
   * replica runs it, including those that do not relay.
   */
  async purgePublished(): Promise<number> {
    const { rowCount } = await this.#db.query(`DELETE FROM outbox WHERE published_at < now() - make_interval(secs => $1)`, [this.#options.retentionMs / 1000]);
    return rowCount ?? 0;
  }

  /**
   * Publishes again, in order, every event still retained as published. For an in-memory stream that
   * started empty (the embedded mode after a restart): consumers that had not handled an event before
   * the process stopped get it now, and idempotent consumers skip the rest. Call before start().
   * Read a batch at a time, as the relay reads: a day's retention can hold far more than memory.
   */
  async replayRetained(): Promise<number> {
    let total = 0;
    let after = '0';
    for (;;) {
      await this.#stream.readyToPublish();
      const { rows, more } = await this.#readBatch(this.#db, 'published', after);
      for (const row of rows) await this.#stream.publish(toEvent(row));
      total += rows.length;
      if (!more) return total;
      after = rows[rows.length - 1].id;
    }
  }

  start(): void {
    this.#task ??= runPeriodically('outbox relay', this.#options.pollMs, this.#logger, () => this.runOnce());
    this.#unobserve ??= this.#observeBacklog();
  }

  /**
   * Publishes soon, without waiting for the next poll: called after a local commit. A relay that has
   * been idle starts the run on the next turn of the event loop, after the caller's pending
   * callbacks: a handler that kicks just before it answers sends its reply first, and the relay's
   * queries do not go out ahead of it. One that is running or has just run waits a little longer
   * (relay-plan.ts), so that the events of calls made one after another go out in one run.
   */
  kick(): void {
    if (this.#kickPending || this.#task === undefined || this.#stopped) return;
    this.#kickPending = true;
    this.#scheduleKickedRun();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelKick?.();
    this.#stopping.resolve();
    this.#unobserve?.();
    await this.#task?.stop();
  }

  /** Arms the pending kick's run when relay-plan.ts says, which waits for a run in progress to end. */
  #scheduleKickedRun(): void {
    if (this.#cancelKick || this.#stopped) return;
    const delay = kickDelay({ running: this.#running > 0, busyRunEndedAt: this.#busyRunEndedAt, now: performance.now() });
    if (delay === 'after-run') return;
    const run = () => {
      this.#cancelKick = undefined;
      this.#kickPending = false;
      this.#task?.kick();
    };
    if (delay === 0) {
      const immediate = setImmediate(run);
      this.#cancelKick = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(run, delay).unref();
      this.#cancelKick = () => clearTimeout(timer);
    }
  }

  /** Read on each scrape: a growing backlog or age means events are not reaching consumers. */
  #observeBacklog(): () => void {
    const gauges = {
      count: { name: 'lode.outbox.backlog', description: 'Events written but not yet published' },
      age: { name: 'lode.outbox.oldest_age', description: 'Age of the oldest unpublished event', unit: 's' },
    };
    // One series per schema: a process may run several services' outboxes (the embedded one does).
    const outbox = { 'lode.outbox.schema': this.#db.schema };
    return observeGauges(gauges, async (observe) => {
      const { rows } = await this.#db.query<{ count: number; age: number }>(
        `SELECT count(*)::int AS count, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age
           FROM outbox WHERE published_at IS NULL`,
      );
      observe('count', rows[0]?.count ?? 0, outbox);
      observe('age', rows[0]?.age ?? 0, outbox);
    });
  }

  /**
   * The stream's publish runs inside the transaction on purpose: the transaction holds nothing but
   * the advisory lock that makes this relay the only one publishing (the reads take no row lock, so
   * writers of new events never wait for it), and a relay that dies mid-batch frees it with its
   * connection. The rows it published are marked at the end, in the same transaction.
   *
   * That mark commits without waiting for the WAL flush: losing it in a crash only publishes its
   * events again, which delivery absorbs anyway, while a flush per batch would queue on the disk
   * with the writes whose latency users see.
   */
  async #publishBatch(): Promise<{ published: number; more: boolean }> {
    return this.#db.transaction(async (tx) => {
      const { rows: lock } = await tx.query<{ ok: boolean }>(RELAY_LOCK);
      if (!lock[0]?.ok) return { published: 0, more: false };
      const { rows, more } = await this.#readBatch(tx, 'unpublished', '0');
      const published: string[] = [];
      // One at a time: an event is stored before the next is sent, so a failure cannot leave a
      // later event stored ahead of an earlier one. What went out is marked even if a later one failed.
      for (const row of rows) {
        try {
          await this.#stream.publish(toEvent(row));
        } catch (error) {
          this.#logger.warn({ err: error, eventId: row.event_id }, 'publishing an outbox event failed; the relay retries');
          break;
        }
        published.push(row.id);
      }
      if (published.length > 0) {
        await tx.query(MARK_PUBLISHED, [published]);
      }
      // After a failed publish the relay tries again at its next poll, not at once.
      return { published: published.length, more: more && published.length === rows.length };
    });
  }

  /**
   * The next batch of published or unpublished events after id `after`, in id order: at most
   * batchSize events and batchBytes of payload, one event at least. The sizes are summed before any
   * payload is read (a payload is stored out of line, and its length is in its pointer), then only
   * the batch's payloads are read.
   */
  async #readBatch(q: Queryable, which: 'published' | 'unpublished', after: string): Promise<Batch> {
    const { batchSize, batchBytes } = this.#options;
    const { rows } = await q.query<OutboxRow & { candidates: number }>(BATCH[which], [after, batchSize, batchBytes]);
    const candidates = rows[0]?.candidates ?? 0;
    return { rows, more: rows.length < candidates || candidates === batchSize };
  }
}
