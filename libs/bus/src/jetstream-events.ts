import { setTimeout as delay } from 'node:timers/promises';
import { headers as natsHeaders, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  PubHeaders,
  RetentionPolicy,
  StorageType,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
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
import { deliverEvent } from './event-delivery.ts';
import { encode } from './wire.ts';

export interface JetStreamEventsOptions {
  /** Prefixed to every subject and suffixed to the stream name, as NatsBus does: isolates test runs. */
  namespace?: string;
  /** How long the stream keeps an event; a consumer further behind than this loses it. */
  maxAgeMs?: number;
  retryBackoff?: RetryBackoff;
}

const DEFAULT_MAX_AGE_MS = 7 * 24 * 60 * 60_000;
/** A republish after a lost publish ack (the outbox retrying) within this window is known by its id. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;
/** An unacked event is redelivered after this; a handler still running keeps extending it. */
const ACK_WAIT_MS = 30_000;
/** How long a pull waits for an event on the server before the next one is sent. */
const PULL_EXPIRES_MS = 1_000;
const STREAM_NAME_IN_USE = 10058;

/**
 * Events on one JetStream stream per namespace, consumed through durable pull consumers with
 * max_ack_pending 1: the server hands out the next event only once the previous one is acked, which
 * keeps handlers in order across every replica sharing a consumer name.
 */
export class JetStreamEvents implements EventStream {
  readonly streamName: string;
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #logger: Logger;
  readonly #prefix: string;
  readonly #retry: RetryBackoff;
  readonly #consumers = new Set<EventConsumer>();

  /** Ready to publish and consume: the namespace's stream exists with these options. */
  static async connect(nc: NatsConnection, logger: Logger, options: JetStreamEventsOptions = {}): Promise<JetStreamEvents> {
    const events = new JetStreamEvents(nc, await jetstreamManager(nc), logger, options);
    await events.#ensureStream(options.maxAgeMs ?? DEFAULT_MAX_AGE_MS);
    return events;
  }

  private constructor(nc: NatsConnection, jsm: JetStreamManager, logger: Logger, options: JetStreamEventsOptions) {
    this.#nc = nc;
    this.#jsm = jsm;
    this.#js = jetstream(nc);
    this.#logger = logger;
    this.#prefix = options.namespace ? `${options.namespace}.` : '';
    this.streamName = options.namespace ? `LODE_EVENTS_${options.namespace.replaceAll(/[^A-Za-z0-9_-]/g, '_')}` : 'LODE_EVENTS';
    this.#retry = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const body = encode(event.data);
    const hdrs = natsHeaders();
    hdrs.set(PubHeaders.MsgIdHdr, event.id);
    if (event.traceContext) {
      for (const [key, value] of Object.entries(event.traceContext)) hdrs.set(key, value);
    } else {
      injectTraceContext((key, value) => hdrs.set(key, value));
    }
    // The client would refuse it too, but with a message naming neither the event nor the sizes.
    const bytes = body.length + headerBytes(hdrs);
    const limit = this.#nc.info?.max_payload ?? 1024 * 1024;
    if (bytes > limit) throw new EventTooLargeError(event.subject, bytes, limit);
    await this.#js.publish(this.#prefix + event.subject, body, { headers: hdrs });
  }

  async consume<E extends EventContract>(name: string, contract: E, handler: EventHandler<E>, options: ConsumerOptions = {}): Promise<EventConsumer> {
    assertConsumerName(name);
    await this.#ensureConsumer(name, this.#prefix + contract.subject, options.deliverFrom ?? 'all');
    const consumer = await this.#js.consumers.get(this.streamName, name);
    let stopping = false;
    const running = this.#run(consumer, name, contract, handler, () => stopping);
    const handle: EventConsumer = {
      stop: async () => {
        stopping = true;
        this.#consumers.delete(handle);
        await running;
      },
    };
    this.#consumers.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#consumers].map((consumer) => consumer.stop()));
  }

  /** Deletes the stream with every event and consumer in it: for tests cleaning up their namespace. */
  async deleteStream(): Promise<void> {
    await this.#jsm.streams.delete(this.streamName);
  }

  /** Idempotent, and safe when several processes start at once: whoever loses the create updates. */
  async #ensureStream(maxAgeMs: number): Promise<void> {
    const limits = {
      subjects: [`${this.#prefix}lode.events.>`],
      discard: DiscardPolicy.Old,
      max_age: nanos(maxAgeMs),
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    };
    try {
      await this.#jsm.streams.add({ name: this.streamName, storage: StorageType.File, retention: RetentionPolicy.Limits, ...limits });
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === STREAM_NAME_IN_USE)) throw error;
      await this.#jsm.streams.update(this.streamName, limits);
    }
  }

  /**
   * Creates the durable on first use. Replicas starting together send the same config, which the
   * server accepts twice; deliverFrom only matters at creation, as the server cannot change it later.
   */
  async #ensureConsumer(name: string, filter: string, deliverFrom: 'all' | 'new'): Promise<void> {
    const existing = await this.#jsm.consumers.info(this.streamName, name).catch((error: unknown) => {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
      throw error;
    });
    if (existing) {
      const consumes = existing.config.filter_subject ?? '';
      if (consumes !== filter) throw consumerSubjectMismatch(name, consumes, filter);
      return;
    }
    await this.#jsm.consumers.add(this.streamName, {
      durable_name: name,
      filter_subject: filter,
      deliver_policy: deliverFrom === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
      ack_policy: AckPolicy.Explicit,
      max_ack_pending: 1,
      ack_wait: nanos(ACK_WAIT_MS),
      max_deliver: -1,
    });
  }

  /**
   * One pull for one event at a time, each left to end on the server's side (an event or the
   * expiry), never cancelled: a pull cancelled by unsubscribing can race an event the server is
   * already sending, which then stays unacked for ACK_WAIT_MS and, with max_ack_pending 1, holds up
   * every replica. The price is that stop() on an idle consumer takes up to PULL_EXPIRES_MS.
   */
  async #run<E extends EventContract>(consumer: Consumer, name: string, contract: E, handler: EventHandler<E>, stopping: () => boolean): Promise<void> {
    while (!stopping() && !this.#nc.isClosed()) {
      let msg: JsMsg | null;
      try {
        msg = await consumer.next({ expires: PULL_EXPIRES_MS });
      } catch (error) {
        this.#logger.warn({ err: error, consumer: name, subject: contract.subject }, 'pulling the next event failed; retrying');
        await delay(PULL_EXPIRES_MS);
        continue;
      }
      if (!msg) continue;
      if (stopping()) {
        // Arrived while stop() waited for the pull to end: hand it straight to another replica.
        msg.nak();
        return;
      }
      await this.#handle(msg, name, contract, handler);
    }
  }

  async #handle<E extends EventContract>(msg: JsMsg, name: string, contract: E, handler: EventHandler<E>): Promise<void> {
    const meta = { id: msg.headers?.get(PubHeaders.MsgIdHdr) ?? '', streamSeq: msg.seq, redelivered: msg.redelivered };
    // Without this a handler slower than ACK_WAIT_MS would see its event redelivered, maybe to
    // another replica while it is still running.
    const keepAlive = setInterval(() => msg.working(), ACK_WAIT_MS / 3);
    const outcome = await deliverEvent({
      consumer: name,
      contract,
      handler,
      body: msg.data,
      meta,
      header: (key) => msg.headers?.get(key) || undefined,
      logger: this.#logger,
      backlog: { pending: msg.info.pending, publishedAtMs: msg.info.timestampNanos / 1e6 },
    }).finally(() => clearInterval(keepAlive));
    switch (outcome) {
      case 'handled':
        // Confirmed before the next event, so once stop() resolves a restarted consumer starts after this one.
        if (!(await msg.ackAck().catch(() => false))) {
          this.#logger.warn({ consumer: name, subject: contract.subject, id: meta.id }, 'event ack unconfirmed; it may be delivered again');
        }
        break;
      case 'failed':
        msg.nak(retryDelayMs(this.#retry, msg.info.deliveryCount));
        break;
      case 'rejected':
        msg.term();
        break;
    }
  }
}

/** The bytes NATS counts against max_payload for these headers (nats-core's encoding of MsgHdrs). */
function headerBytes(hdrs: MsgHdrs): number {
  let text = 'NATS/1.0';
  for (const [key, values] of hdrs) for (const value of values) text += `\r\n${key}: ${value}`;
  return Buffer.byteLength(`${text}\r\n\r\n`);
}
