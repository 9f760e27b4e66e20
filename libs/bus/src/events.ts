import type { EventContract, EventOf } from '@lode/contracts';

export interface OutgoingEvent {
  /** An EventContract's subject, un-namespaced. */
  subject: string;
  /**
   * Deduplication id: the same id published twice is stored once. JetStream remembers ids for its
   * two-minute duplicate window, long enough for an outbox retrying after a lost ack; LocalEvents for
   * the life of the process.
   */
  id: string;
  /** JSON-serialisable payload, already validated by the producer. */
  data: unknown;
  /**
   * W3C traceparent/tracestate captured when the event was produced (an outbox row keeps it), so the
   * consumers' spans join the producer's trace even when a relay publishes it later. Without it the
   * active context is sent.
   */
  traceContext?: Record<string, string>;
}

export interface EventMeta {
  id: string;
  streamSeq: number;
  /** Handed over before: by the transport after a lost ack, or again here after the handler failed or deferred. */
  redelivered: boolean;
  /**
   * Whether every event of this consumer's subject stored before this one has been handled or
   * dropped, by any replica. Once it holds, an event that should have come before this one is not
   * on its way (a replica holding it, a delivery to redo) but lost. It never turns false again.
   */
  earlierSettled(): Promise<boolean>;
}

export type EventHandler<E extends EventContract> = (event: EventOf<E>, meta: EventMeta) => Promise<void>;

export interface EventConsumer {
  /** Stops taking events and resolves once the handler in flight, if any, has finished and been acked. */
  stop(): Promise<void>;
}

export interface ConsumerOptions<E extends EventContract = EventContract> {
  /** Where a consumer seen for the first time starts; a consumer that already exists keeps its position. */
  deliverFrom?: 'all' | 'new';
  /**
   * The event's ordering key, e.g. its project. Without one, a consumer takes one event at a time
   * across all its replicas, in stream order, so one slow or failing event holds up every later one.
   * With one, many events are in flight: within a process those of one key are handled one after
   * another in stream order (a failing one is retried before the key's next), different keys at the
   * same time. Across replicas two processes can hold events of one key at once, so a handler that
   * needs them in order checks that itself and throws EventDeferred for an event that came early.
   */
  orderedBy?: (event: EventOf<E>) => string;
  /** With orderedBy: how many keys' handlers run at once in this process (default 4). */
  concurrency?: number;
}

/** Handlers of different keys running at once in one process, unless a consumer asks otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/**
 * Events that services publish after committing a change and consume in order, at least once.
 * Both implementations parse payloads with the contract, retry a failing handler before any later
 * event and propagate trace context, so a consumer behaves the same embedded and over JetStream.
 */
export interface EventStream {
  /**
   * Resolves once the event is durably stored: an outbox marks its row published only after this.
   * Publishes awaited one by one are stored in call order. An event larger than the transport allows
   * rejects with EventTooLargeError; producers split large events themselves.
   */
  publish(event: OutgoingEvent): Promise<void>;
  /**
   * Resolves when a publisher that can run far ahead of the consumers (an outbox relay with a
   * backlog) may publish more. JetStream keeps events on disk and answers at once; the in-memory
   * stream waits while a consumer is too far behind, so that memory does not fill with what it has
   * yet to handle.
   */
  readyToPublish(): Promise<void>;
  /**
   * A durable consumer named `name` (letters, digits, `_`, `-`) of one contract. It survives restarts,
   * and consumers sharing a name share the work. The next event (of the same key, with `orderedBy`)
   * is handed over only once the handler has resolved; a handler that throws gets the same event
   * again after a backoff, before any later one (of its key). An event failing the contract's schema
   * is logged and dropped so it cannot block the stream. Handlers run inside a CONSUMER span whose
   * parent is the event's trace context.
   */
  consume<E extends EventContract>(name: string, contract: E, handler: EventHandler<E>, options?: ConsumerOptions<NoInfer<E>>): Promise<EventConsumer>;
  /** Stops every consumer, waiting for handlers in flight. Leaves the NATS connection open. */
  close(): Promise<void>;
}

/** Delay before a failed event is handed over again: doubling from initialMs up to maxMs. */
export interface RetryBackoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 1000, maxMs: 60_000 };

/**
 * A deferred event is usually waiting for one another replica is applying at that moment: tried
 * again soon, then less often while the wait lasts (a delivery to redo after its ack wait).
 */
export const DEFER_BACKOFF: RetryBackoff = { initialMs: 50, maxMs: 1000 };

/**
 * Thrown by a handler that cannot handle an event yet because it came ahead of an earlier one: the
 * event is handed over again after DEFER_BACKOFF, before the key's later events, and logged only at
 * debug level. Not a failure: nothing is wrong, the order is being restored.
 */
export class EventDeferred extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'EventDeferred';
  }
}

/** failures: how many times this event's handler has failed so far (1 after the first failure). */
export function retryDelayMs(backoff: RetryBackoff, failures: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(failures - 1, 30));
}

export class EventTooLargeError extends Error {
  readonly bytes: number;
  readonly limit: number;

  constructor(subject: string, bytes: number, limit: number) {
    super(`Event ${subject} is ${bytes} bytes, over the limit of ${limit} bytes (the server's max_payload); split it into smaller events`);
    this.name = 'EventTooLargeError';
    this.bytes = bytes;
    this.limit = limit;
  }
}

const CONSUMER_NAME = /^[A-Za-z0-9_-]+$/;

/** One rule for both implementations, strict enough to be a JetStream durable name. */
export function assertConsumerName(name: string): void {
  if (!CONSUMER_NAME.test(name)) throw new Error(`Consumer name "${name}" must match ${String(CONSUMER_NAME)}`);
}

export function consumerSubjectMismatch(name: string, consumes: string, requested: string): Error {
  return new Error(`Consumer ${name} already consumes ${consumes}; it cannot also consume ${requested} (use one name per contract)`);
}
