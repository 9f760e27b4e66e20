import type { EventContract, EventOf } from '@lode/contracts';
import { injectTraceContext, observeGauges, type Logger } from '@lode/telemetry';
import { CONSUMER_LAG_GAUGES } from './consumer-lag.ts';
import {
  assertConsumerName,
  consumerSubjectMismatch,
  DEFAULT_CONCURRENCY,
  DEFAULT_RETRY_BACKOFF,
  EventTooLargeError,
  type ConsumerOptions,
  type EventConsumer,
  type EventHandler,
  type EventStream,
  type OutgoingEvent,
  type RetryBackoff,
} from './events.ts';
import { deliverEvent, parseEvent, WAITING_WARN_MS, warnWaiting } from './event-delivery.ts';
import { HELD_BYTES, OrderedDispatcher, type HeldEvent } from './ordered-dispatcher.ts';
import { encode } from './wire.ts';

export interface LocalEventsOptions {
  /** Largest event accepted; NATS's default max_payload, so an event too large for production fails here too. */
  maxPayloadBytes?: number;
  /**
   * Bytes of events kept once every consumer has passed them, so a consumer created later can still
   * read history; beyond it the oldest consumed events are dropped (64 MiB by default).
   */
  retainedBytes?: number;
  /**
   * Bytes of events a consumer may have published and not yet handled before readyToPublish()
   * waits for it (32 MiB by default): what memory holds beyond the retained history, however far
   * ahead of the consumers a relay is.
   */
  backlogBytes?: number;
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

/** One consume() call's share of a cursor: takes events into its dispatcher while it is the first taker. */
interface Taker {
  take(event: StoredEvent, redelivered: boolean): void;
  readonly dispatcher: Pick<OrderedDispatcher<HeldEvent>, 'room' | 'whenRoom'>;
}

/** A named consumer's place in the log. It outlives the consume() calls using it, as a durable does. */
interface Cursor {
  subject: string;
  /** Index in the log of the next event to hand over. */
  position: number;
  /** Seqs handed over and not yet handled: they hold back trimming, and answer earlierSettled. */
  unsettled: Set<number>;
  /** Events given back (queued when a consumer stopped), handed over again before the log's next, lowest first. */
  redeliver: StoredEvent[];
  /** The consume() calls under this name; the first one takes the events while it runs. */
  takers: Taker[];
  /** A feed is waiting for room in the first taker's dispatcher. */
  awaitingRoom: boolean;
  /** Bytes of this subject's events published and not yet handled (or dropped) under this name. */
  backlogBytes: number;
  /** When it last handled an event, or had a backlog again after none: a publisher waits only for a consumer moving. */
  progressAtMs: number;
}

/** Events one consumer holds at once, parsed or (beyond HELD_BYTES) not yet, as JetStream's consumers do. */
const HELD_EVENTS = 1024;
/** A consumer that has handled nothing for this long holds back no publisher (readyToPublish). */
export const STALL_AFTER_MS = 10_000;

/**
 * The embedded-mode event stream: an append-only log in memory, each consumer name a cursor whose
 * events run through the same OrderedDispatcher as JetStream's: in order, one key at a time with
 * `orderedBy`, one event at a time without. It keeps the promises of JetStreamEvents except
 * durability across process restarts (the embedded process replays its outbox at start instead).
 * Events every consumer has handled are dropped oldest first once they exceed `retainedBytes`,
 * with their ids, and a relay publishing faster than a consumer handles waits in readyToPublish()
 * while that consumer is more than `backlogBytes` behind, so memory stays bounded.
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
  readonly #backlogBytes: number;
  readonly #retry: RetryBackoff;
  /** Wakes the publishers in readyToPublish() to look again: a consumer handled an event or stopped. */
  #publisherWakers: (() => void)[] = [];
  #closed = false;

  constructor(logger: Logger, options: LocalEventsOptions = {}) {
    this.#logger = logger;
    this.#maxPayloadBytes = options.maxPayloadBytes ?? 1024 * 1024;
    this.#retainedBytes = options.retainedBytes ?? 64 * 1024 * 1024;
    this.#backlogBytes = options.backlogBytes ?? 32 * 1024 * 1024;
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
    for (const cursor of this.#cursors.values()) {
      if (cursor.subject !== event.subject) continue;
      if (cursor.backlogBytes === 0) cursor.progressAtMs = Date.now();
      cursor.backlogBytes += body.length;
    }
    for (const cursor of this.#cursors.values()) this.#feed(cursor);
  }

  /**
   * Waits while a running consumer is more than `backlogBytes` behind, until it catches up or has
   * handled nothing for STALL_AFTER_MS (failing, or waiting for an event this very publisher
   * is to send): a publisher waits for a consumer that moves, never for one that does not. A consumer
   * with no consume() running holds back nobody. The relay calls this before reading a batch, never
   * a handler: a handler waiting here may be the one being waited for.
   */
  async readyToPublish(): Promise<void> {
    for (;;) {
      const behind = this.#furthestBehind();
      if (!behind || this.#closed) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, behind.progressAtMs + STALL_AFTER_MS - Date.now());
        this.#publisherWakers.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async consume<E extends EventContract>(
    name: string,
    contract: E,
    handler: EventHandler<E>,
    options: ConsumerOptions<NoInfer<E>> = {},
  ): Promise<EventConsumer> {
    assertConsumerName(name);
    const cursor = this.#cursorFor(name, contract.subject, options.deliverFrom ?? 'all');
    /** Without `event` while its parsed payload is let go; the stored body stays in the log. */
    type Held = HeldEvent & { stored: StoredEvent; event?: EventOf<E>; redelivered: boolean };
    const parse = (stored: StoredEvent) => parseEvent(contract, stored.body, this.#logger, { consumer: name, id: stored.id, streamSeq: stored.seq });
    const deliver = (held: Held, retried: boolean, event: EventOf<E>) =>
      deliverEvent({
        consumer: name,
        contract,
        handler,
        event,
        meta: {
          id: held.stored.id,
          streamSeq: held.seq,
          redelivered: held.redelivered || retried,
          earlierSettled: async () => ![...cursor.unsettled].some((seq) => seq < held.seq),
        },
        header: (key) => held.stored.traceContext[key],
        logger: this.#logger,
        // Every later event counts, whatever its subject: an upper bound for a filtered consumer.
        backlog: { pending: this.#length - held.seq, publishedAtMs: held.stored.publishedAtMs },
      });
    const dispatcher = new OrderedDispatcher<Held>(
      {
        // The dispatcher loads an event before it runs it; one without its payload here is a bug, retried.
        run: (held, retried) => (held.event === undefined ? Promise.resolve('failed') : deliver(held, retried, held.event)),
        settle: async (held) => {
          this.#consumed(cursor, held.stored, cursor.unsettled.delete(held.seq));
          this.#trim();
        },
        giveBack: (held) => this.#giveBack(cursor, held.stored),
        unload: (held) => ({ ...held, event: undefined }),
        load: async (held) => {
          const event = parse(held.stored);
          return event === undefined ? undefined : { ...held, event };
        },
        waiting: (held, waitedMs) => warnWaiting(this.#logger, { consumer: name, subject: contract.subject }, held, waitedMs),
      },
      {
        concurrency: options.orderedBy ? (options.concurrency ?? DEFAULT_CONCURRENCY) : 1,
        capacity: HELD_EVENTS,
        capacityBytes: HELD_BYTES,
        waitingAfterMs: WAITING_WARN_MS,
        retry: this.#retry,
      },
    );
    const taker: Taker = {
      dispatcher,
      take: (stored, redelivered) => {
        const event = parse(stored);
        if (event === undefined) {
          this.#consumed(cursor, stored, !cursor.unsettled.has(stored.seq));
          return;
        }
        cursor.unsettled.add(stored.seq);
        dispatcher.add({ key: options.orderedBy?.(event) ?? '', seq: stored.seq, bytes: stored.body.length, stored, event, redelivered });
      },
    };
    cursor.takers.push(taker);
    // It could not move while nothing consumed under its name.
    cursor.progressAtMs = Date.now();
    // The same gauges as a JetStream consumer's, read from the cursor when metrics are collected.
    const lagAttributes = { 'messaging.consumer.group.name': name, 'messaging.destination.name': contract.subject };
    const unobserveLag = observeGauges(CONSUMER_LAG_GAUGES, (observe) => {
      const lag = this.#lag(cursor);
      observe('events', lag.events, lagAttributes);
      observe('seconds', lag.seconds, lagAttributes);
    });
    const consumer: EventConsumer = {
      stop: async () => {
        unobserveLag();
        this.#consumers.delete(consumer);
        cursor.takers = cursor.takers.filter((t) => t !== taker);
        this.#wakePublishers();
        await dispatcher.stop();
        this.#feed(cursor);
      },
    };
    this.#consumers.add(consumer);
    this.#feed(cursor);
    return consumer;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wakePublishers();
    await Promise.all([...this.#consumers].map((consumer) => consumer.stop()));
  }

  #cursorFor(name: string, subject: string, deliverFrom: 'all' | 'new'): Cursor {
    const existing = this.#cursors.get(name);
    if (existing) {
      if (existing.subject !== subject) throw consumerSubjectMismatch(name, existing.subject, subject);
      return existing;
    }
    const position = deliverFrom === 'new' ? this.#length : this.#dropped;
    let backlogBytes = 0;
    for (const event of this.#log.slice(position - this.#dropped)) if (event.subject === subject) backlogBytes += event.body.length;
    const cursor: Cursor = { subject, position, unsettled: new Set(), redeliver: [], takers: [], awaitingRoom: false, backlogBytes, progressAtMs: Date.now() };
    this.#cursors.set(name, cursor);
    return cursor;
  }

  /** Hands the first taker what it has room for: given-back events first, then the log's next. */
  #feed(cursor: Cursor): void {
    const taker = cursor.takers[0];
    if (!taker || this.#closed || cursor.awaitingRoom) return;
    const { dispatcher } = taker;
    for (;;) {
      const redelivery = cursor.redeliver.at(0);
      const event = redelivery ?? this.#nextEvent(cursor);
      if (!event) return;
      if (dispatcher.room(event.body.length) <= 0) {
        cursor.awaitingRoom = true;
        void dispatcher.whenRoom(event.body.length).then(() => {
          cursor.awaitingRoom = false;
          this.#feed(cursor);
        });
        return;
      }
      if (redelivery) {
        cursor.redeliver.shift();
        taker.take(redelivery, true);
        continue;
      }
      // Moved on before the handler runs: a handler that publishes feeds this cursor again from here.
      cursor.position += 1;
      taker.take(event, false);
    }
  }

  /** The event was handled or dropped under the cursor's name; `first` unless it was already counted. */
  #consumed(cursor: Cursor, event: StoredEvent, first: boolean): void {
    if (!first) return;
    cursor.backlogBytes -= event.body.length;
    cursor.progressAtMs = Date.now();
    this.#wakePublishers();
  }

  /**
   * What the cursor has not handled: the events it holds unsettled and those of its subject still
   * ahead of it in the log, and the age of the oldest of them (0 when there is none).
   */
  #lag(cursor: Cursor): { events: number; seconds: number } {
    let events = cursor.unsettled.size;
    let oldestAtMs: number | undefined;
    for (const seq of cursor.unsettled) {
      const held = this.#log[seq - 1 - this.#dropped];
      if (held && (oldestAtMs === undefined || held.publishedAtMs < oldestAtMs)) oldestAtMs = held.publishedAtMs;
    }
    for (let at = Math.max(cursor.position, this.#dropped); at < this.#length; at += 1) {
      const event = this.#log[at - this.#dropped];
      if (event.subject !== cursor.subject) continue;
      events += 1;
      if (oldestAtMs === undefined || event.publishedAtMs < oldestAtMs) oldestAtMs = event.publishedAtMs;
    }
    return { events, seconds: oldestAtMs === undefined ? 0 : Math.max(0, Date.now() - oldestAtMs) / 1000 };
  }

  /** The running consumer furthest over backlogBytes that has moved within STALL_AFTER_MS, if any. */
  #furthestBehind(): Cursor | undefined {
    let furthest: Cursor | undefined;
    const movingSince = Date.now() - STALL_AFTER_MS;
    for (const cursor of this.#cursors.values()) {
      if (cursor.takers.length === 0 || cursor.backlogBytes <= this.#backlogBytes || cursor.progressAtMs <= movingSince) continue;
      if (!furthest || cursor.backlogBytes > furthest.backlogBytes) furthest = cursor;
    }
    return furthest;
  }

  #wakePublishers(): void {
    const wakers = this.#publisherWakers;
    this.#publisherWakers = [];
    for (const wake of wakers) wake();
  }

  #giveBack(cursor: Cursor, event: StoredEvent): void {
    let at = cursor.redeliver.length;
    while (at > 0 && cursor.redeliver[at - 1].seq > event.seq) at -= 1;
    cursor.redeliver.splice(at, 0, event);
    this.#feed(cursor);
  }

  get #length(): number {
    return this.#dropped + this.#log.length;
  }

  #nextEvent(cursor: Cursor): StoredEvent | undefined {
    while (cursor.position < this.#length && this.#log[cursor.position - this.#dropped].subject !== cursor.subject) cursor.position += 1;
    return this.#log[cursor.position - this.#dropped];
  }

  /** Drops the oldest events beyond the retained bytes, but only those every consumer has handled. */
  #trim(): void {
    if (this.#bytes <= this.#retainedBytes || this.#cursors.size === 0) return;
    const floor = Math.min(...[...this.#cursors.values()].map((c) => Math.min(c.position, ...[...c.unsettled].map((seq) => seq - 1))));
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
