import type { EventContract } from '@lode/contracts';
import { injectTraceContext, type Logger } from '@lode/telemetry';
import {
  assertConsumerName,
  consumerSubjectMismatch,
  DEFAULT_RETRY_BACKOFF,
  EventTooLargeError,
  retryDelayMs,
  type ConsumerOptions,
  type EventConsumer,
  type EventHandler,
  type EventStream,
  type OutgoingEvent,
  type RetryBackoff,
} from './events.ts';
import { deliverEvent, type DeliveryOutcome } from './event-delivery.ts';
import { encode } from './wire.ts';

export interface LocalEventsOptions {
  /** Largest event accepted; NATS's default max_payload, so an event too large for production fails here too. */
  maxPayloadBytes?: number;
  /**
   * Bytes of events kept once every consumer has passed them, so a consumer created later can still
   * read history; beyond it the oldest consumed events are dropped (64 MiB by default).
   */
  retainedBytes?: number;
  retryBackoff?: RetryBackoff;
}

interface StoredEvent {
  seq: number;
  id: string;
  subject: string;
  /** Stored encoded, as on the wire: each delivery parses its own copy, never the producer's object. */
  body: Buffer;
  traceContext: Record<string, string>;
  publishedAtMs: number;
}

type Deliver = (event: StoredEvent, redelivered: boolean) => Promise<DeliveryOutcome>;

/** A named consumer's place in the log. It outlives the consume() calls using it, as a durable does. */
interface Cursor {
  subject: string;
  /** Index in the log of the next event to look at. */
  position: number;
  /** How often the event at `position` has failed so far. */
  failures: number;
  /** The consume() calls under this name; the first one takes the events while it runs. */
  takers: Deliver[];
  running: boolean;
  /** The delivery in progress, which stop() waits for. */
  delivering?: Promise<DeliveryOutcome>;
  retryTimer?: NodeJS.Timeout;
}

/**
 * The embedded-mode event stream: an append-only log in memory, one sequential loop per consumer
 * name. It keeps the promises of JetStreamEvents except durability across process restarts (the
 * embedded process replays its outbox at start instead). Events every consumer has passed are
 * dropped oldest first once they exceed `retainedBytes`, with their ids, so memory stays bounded.
 */
export class LocalEvents implements EventStream {
  /** The retained suffix of the log; positions are absolute, `#dropped` events precede it. */
  readonly #log: StoredEvent[] = [];
  #dropped = 0;
  #bytes = 0;
  readonly #ids = new Set<string>();
  readonly #cursors = new Map<string, Cursor>();
  readonly #consumers = new Set<EventConsumer>();
  readonly #logger: Logger;
  readonly #maxPayloadBytes: number;
  readonly #retainedBytes: number;
  readonly #retry: RetryBackoff;
  #closed = false;

  constructor(logger: Logger, options: LocalEventsOptions = {}) {
    this.#logger = logger;
    this.#maxPayloadBytes = options.maxPayloadBytes ?? 1024 * 1024;
    this.#retainedBytes = options.retainedBytes ?? 64 * 1024 * 1024;
    this.#retry = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const body = encode(event.data);
    if (body.length > this.#maxPayloadBytes) throw new EventTooLargeError(event.subject, body.length, this.#maxPayloadBytes);
    if (this.#ids.has(event.id)) return;
    this.#ids.add(event.id);
    const traceContext = event.traceContext ?? activeTraceContext();
    this.#log.push({ seq: this.#length + 1, id: event.id, subject: event.subject, body, traceContext, publishedAtMs: Date.now() });
    this.#bytes += body.length;
    for (const cursor of this.#cursors.values()) void this.#drain(cursor);
  }

  async consume<E extends EventContract>(name: string, contract: E, handler: EventHandler<E>, options: ConsumerOptions = {}): Promise<EventConsumer> {
    assertConsumerName(name);
    const cursor = this.#cursorFor(name, contract.subject, options.deliverFrom ?? 'all');
    const deliver: Deliver = (event, redelivered) =>
      deliverEvent({
        consumer: name,
        contract,
        handler,
        body: event.body,
        meta: { id: event.id, streamSeq: event.seq, redelivered },
        header: (key) => event.traceContext[key],
        logger: this.#logger,
        // Every later event counts, whatever its subject: an upper bound for a filtered consumer.
        backlog: { pending: this.#length - event.seq, publishedAtMs: event.publishedAtMs },
      });
    cursor.takers.push(deliver);
    const consumer: EventConsumer = {
      stop: async () => {
        this.#consumers.delete(consumer);
        cursor.takers = cursor.takers.filter((taker) => taker !== deliver);
        await cursor.delivering;
      },
    };
    this.#consumers.add(consumer);
    void this.#drain(cursor);
    return consumer;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const cursor of this.#cursors.values()) clearTimeout(cursor.retryTimer);
    await Promise.all([...this.#consumers].map((consumer) => consumer.stop()));
  }

  #cursorFor(name: string, subject: string, deliverFrom: 'all' | 'new'): Cursor {
    const existing = this.#cursors.get(name);
    if (existing) {
      if (existing.subject !== subject) throw consumerSubjectMismatch(name, existing.subject, subject);
      return existing;
    }
    const cursor: Cursor = { subject, position: deliverFrom === 'new' ? this.#length : this.#dropped, failures: 0, takers: [], running: false };
    this.#cursors.set(name, cursor);
    return cursor;
  }

  /** Hands a cursor's events over one at a time. Publish and consume both nudge it; one loop runs per cursor. */
  async #drain(cursor: Cursor): Promise<void> {
    if (cursor.running || cursor.retryTimer) return;
    cursor.running = true;
    try {
      while (!this.#closed) {
        const deliver = cursor.takers[0];
        const event = this.#nextEvent(cursor);
        if (!deliver || !event) return;
        cursor.delivering = deliver(event, cursor.failures > 0);
        if ((await cursor.delivering) === 'failed') {
          cursor.failures += 1;
          cursor.retryTimer = setTimeout(() => {
            cursor.retryTimer = undefined;
            void this.#drain(cursor);
          }, retryDelayMs(this.#retry, cursor.failures));
          return;
        }
        cursor.position += 1;
        cursor.failures = 0;
        this.#trim();
      }
    } finally {
      cursor.running = false;
      cursor.delivering = undefined;
    }
  }

  get #length(): number {
    return this.#dropped + this.#log.length;
  }

  #nextEvent(cursor: Cursor): StoredEvent | undefined {
    while (cursor.position < this.#length && this.#log[cursor.position - this.#dropped].subject !== cursor.subject) cursor.position += 1;
    return this.#log[cursor.position - this.#dropped];
  }

  /** Drops the oldest events beyond the retained bytes, but only those every consumer has passed. */
  #trim(): void {
    if (this.#bytes <= this.#retainedBytes || this.#cursors.size === 0) return;
    const floor = Math.min(...[...this.#cursors.values()].map((c) => c.position));
    while (this.#dropped < floor && this.#bytes > this.#retainedBytes) {
      const oldest = this.#log.shift();
      if (!oldest) return;
      this.#dropped += 1;
      this.#bytes -= oldest.body.length;
      this.#ids.delete(oldest.id);
    }
  }
}

function activeTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  injectTraceContext((key, value) => {
    carrier[key] = value;
  });
  return carrier;
}
