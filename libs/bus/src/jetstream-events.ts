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
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { EventContract } from '@lode/contracts';
import { injectTraceContext, type Logger } from '@lode/telemetry';
import {
  assertConsumerName,
  consumerSubjectMismatch,
  DEFAULT_RETRY_BACKOFF,
  EventTooLargeError,
  type ConsumerOptions,
  type EventConsumer,
  type EventHandler,
  type EventStream,
  type OutgoingEvent,
  type RetryBackoff,
} from './events.ts';
import { observeConsumerLag } from './consumer-lag.ts';
import { ACK_WAIT_MS, JetStreamConsumer, KEYED_MAX_ACK_PENDING } from './jetstream-consumer.ts';
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
const STREAM_NAME_IN_USE = 10058;

/**
 * Events on one JetStream stream per namespace, consumed through durable pull consumers. One without
 * an ordering key has max_ack_pending 1: the server hands out the next event only once the previous
 * one is acked, which keeps handlers in order across every replica sharing its name. One with a key
 * (ConsumerOptions.orderedBy) has many events in flight, ordered per key within a process
 * (JetStreamConsumer). Each running consumer's lag is observed as gauges while it runs (consumer-lag.ts).
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

  /** The stream is on disk: consumers far behind cost the server storage, not this process memory. */
  async readyToPublish(): Promise<void> {}

  async consume<E extends EventContract>(
    name: string,
    contract: E,
    handler: EventHandler<E>,
    options: ConsumerOptions<NoInfer<E>> = {},
  ): Promise<EventConsumer> {
    assertConsumerName(name);
    const filter = this.#prefix + contract.subject;
    await this.#ensureConsumer(name, filter, options.deliverFrom ?? 'all', options.orderedBy ? KEYED_MAX_ACK_PENDING : 1);
    const consumer = await this.#js.consumers.get(this.streamName, name);
    const running = new JetStreamConsumer({
      nc: this.#nc,
      jsm: this.#jsm,
      consumer,
      streamName: this.streamName,
      name,
      filter,
      contract,
      handler,
      options,
      logger: this.#logger,
      retry: this.#retry,
    });
    const unobserveLag = observeConsumerLag({ jsm: this.#jsm, streamName: this.streamName, name, filter, subject: contract.subject, logger: this.#logger });
    const handle: EventConsumer = {
      stop: async () => {
        this.#consumers.delete(handle);
        unobserveLag();
        await running.stop();
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
   * A durable created by an earlier version (a 30 s ack wait, one event in flight) is updated in
   * place, keeping its position.
   */
  async #ensureConsumer(name: string, filter: string, deliverFrom: 'all' | 'new', maxAckPending: number): Promise<void> {
    const existing = await this.#jsm.consumers.info(this.streamName, name).catch((error: unknown) => {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
      throw error;
    });
    const flow = { ack_wait: nanos(ACK_WAIT_MS), max_ack_pending: maxAckPending };
    if (existing) {
      const consumes = existing.config.filter_subject ?? '';
      if (consumes !== filter) throw consumerSubjectMismatch(name, consumes, filter);
      if (existing.config.ack_wait !== flow.ack_wait || existing.config.max_ack_pending !== flow.max_ack_pending) {
        await this.#jsm.consumers.update(this.streamName, name, flow);
      }
      return;
    }
    await this.#jsm.consumers.add(this.streamName, {
      durable_name: name,
      filter_subject: filter,
      deliver_policy: deliverFrom === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
      ack_policy: AckPolicy.Explicit,
      max_deliver: -1,
      ...flow,
    });
  }
}

/** The bytes NATS counts against max_payload for these headers (nats-core's encoding of MsgHdrs). */
function headerBytes(hdrs: MsgHdrs): number {
  let text = 'NATS/1.0';
  for (const [key, values] of hdrs) for (const value of values) text += `\r\n${key}: ${value}`;
  return Buffer.byteLength(`${text}\r\n\r\n`);
}
