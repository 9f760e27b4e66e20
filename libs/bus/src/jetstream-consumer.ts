import { setTimeout as delay } from 'node:timers/promises';
import type { MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { PubHeaders, type Consumer, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { EventContract, EventOf } from '@lode/contracts';
import type { Logger } from '@lode/telemetry';
import { firstMessageAfter } from './consumer-lag.ts';
import { DEFAULT_CONCURRENCY, type ConsumerOptions, type EventConsumer, type EventHandler, type RetryBackoff } from './events.ts';
import { deliverEvent, parseEvent, WAITING_WARN_MS, warnWaiting, type DeliveryOutcome } from './event-delivery.ts';
import { HELD_BYTES, OrderedDispatcher, type HeldEvent } from './ordered-dispatcher.ts';

/**
 * An unacked event is delivered again after this: what a delivery lost with a crashed process or a
 * NATS restart costs. Events held here are kept alive (working) well within it.
 */
export const ACK_WAIT_MS = 8_000;
/**
 * The server-side limit of unacked events of a consumer with an ordering key, across its replicas;
 * also what one process may hold of it, since the events it holds without their payload cost little.
 */
export const KEYED_MAX_ACK_PENDING = 1024;
/** The largest pull: events arrive with their payloads, so a pull asks for what fits in HELD_BYTES. */
const PULL_EVENTS = 64;
/** The largest event NATS delivers when the server does not say: its default max_payload. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** How long a pull waits for an event on the server before the next one is sent. */
const PULL_EXPIRES_MS = 1_000;
/** Pause after a failed pull (NATS unreachable): short, so the consumer resumes within a second or two of NATS. */
const PULL_RETRY_MS = 250;
/** How long an acknowledgement waits for the server to confirm it. */
const ACK_TIMEOUT_MS = 5_000;

const ACK = Uint8Array.of(43, 65, 67, 75); // +ACK
const NAK = Uint8Array.of(45, 78, 65, 75); // -NAK
const WORKING = Uint8Array.of(43, 87, 80, 73); // +WPI

export interface JetStreamConsumerConfig<E extends EventContract> {
  nc: NatsConnection;
  jsm: JetStreamManager;
  consumer: Consumer;
  streamName: string;
  name: string;
  /** The consumer's filter subject, namespaced. */
  filter: string;
  contract: E;
  handler: EventHandler<E>;
  options: ConsumerOptions<E>;
  logger: Logger;
  retry: RetryBackoff;
}

/**
 * One delivery, held by its ack subject rather than the message, so that its payload can be let go
 * (`event` and `headers` undefined) while the delivery itself stays held and alive.
 */
interface HeldDelivery<E extends EventContract> extends HeldEvent {
  /** The delivery's reply subject: acknowledging, keeping alive and handing back go there. */
  ackSubject: string;
  id: string;
  redelivered: boolean;
  pending: number;
  publishedAtMs: number;
  event?: EventOf<E>;
  headers?: MsgHdrs;
}

/**
 * One durable pull consumer's loop in one process: pulls as many events as the dispatcher has
 * room for and lets it run them by key. Pulls are left to end on the server's side (an event or the
 * expiry), never cancelled: a cancelled pull can race an event the server is already sending, which
 * then waits out the ack wait. The price is that stop() on an idle consumer takes up to PULL_EXPIRES_MS.
 *
 * With an ordering key, replicas sharing the consumer each hold some of a key's events; one that
 * came before the event another replica holds is deferred. Each replica says on a core subject of
 * the consumer's own which key it has just settled an event of, and the others try that key's
 * deferred event again at once, so a key moves at the pace of its handlers, whoever holds what.
 */
export class JetStreamConsumer<E extends EventContract> implements EventConsumer {
  readonly #config: JetStreamConsumerConfig<E>;
  readonly #dispatcher: OrderedDispatcher<HeldDelivery<E>>;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #pulling: Promise<void>;
  readonly #settledSubject: string;
  readonly #settledWord?: Subscription;
  #stopping = false;

  constructor(config: JetStreamConsumerConfig<E>) {
    this.#config = config;
    const keyed = config.options.orderedBy !== undefined;
    this.#settledSubject = `_LODE.settled.${config.streamName}.${config.name}`;
    this.#dispatcher = new OrderedDispatcher<HeldDelivery<E>>(
      {
        run: (held, retried) => this.#deliver(held, retried),
        settle: (held) => this.#ack(held),
        giveBack: (held) => this.#send(held.ackSubject, NAK),
        unload: (held) => ({ ...held, event: undefined, headers: undefined }),
        load: (held) => this.#load(held),
        waiting: (held, waitedMs) => warnWaiting(config.logger, { consumer: config.name, subject: config.contract.subject }, held, waitedMs),
      },
      {
        concurrency: keyed ? (config.options.concurrency ?? DEFAULT_CONCURRENCY) : 1,
        capacity: keyed ? KEYED_MAX_ACK_PENDING : 1,
        capacityBytes: HELD_BYTES,
        waitingAfterMs: WAITING_WARN_MS,
        retry: config.retry,
      },
    );
    if (keyed) {
      this.#settledWord = config.nc.subscribe(this.#settledSubject, {
        callback: (error, msg) => {
          if (!error) this.#dispatcher.wake(msg.string());
        },
      });
    }
    // Every held event, queued ones too: otherwise an event waiting behind its key's slow one would be redelivered.
    this.#keepAlive = setInterval(() => {
      for (const held of this.#dispatcher.held()) this.#send(held.ackSubject, WORKING);
    }, ACK_WAIT_MS / 4);
    this.#pulling = this.#pull();
  }

  /** Stops pulling, hands queued events straight back to other replicas and waits for the handlers running. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const drained = this.#dispatcher.stop();
    await this.#pulling;
    await drained;
    clearInterval(this.#keepAlive);
    this.#settledWord?.unsubscribe();
  }

  /**
   * Asks for as many events as fit if each is as large as the server allows: nats.js takes a limit
   * in messages or in bytes, not both, and one in bytes ends the pull with an error at the first
   * event that does not fit.
   */
  async #pull(): Promise<void> {
    const { nc, consumer, logger, name, contract } = this.#config;
    let failing = false;
    while (!this.#stopping && !nc.isClosed()) {
      const largest = nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
      await this.#dispatcher.whenRoom(largest);
      if (this.#stopping) return;
      try {
        const batch = await consumer.fetch({ max_messages: Math.min(PULL_EVENTS, this.#dispatcher.room(largest)), expires: PULL_EXPIRES_MS });
        for await (const msg of batch) this.#receive(msg);
        if (failing) logger.info({ consumer: name, subject: contract.subject }, 'pulling events again');
        failing = false;
      } catch (error) {
        // Once per outage: a pull fails about every second while NATS is away.
        if (!failing) logger.warn({ err: error, consumer: name, subject: contract.subject }, 'pulling events failed; retrying until NATS answers');
        failing = true;
        await delay(PULL_RETRY_MS);
      }
    }
  }

  #receive(msg: JsMsg): void {
    const { options } = this.#config;
    const id = msg.headers?.get(PubHeaders.MsgIdHdr) ?? '';
    const event = this.#parse(msg.data, id, msg.seq);
    if (event === undefined) {
      msg.term();
      return;
    }
    this.#dispatcher.add({
      key: options.orderedBy?.(event) ?? '',
      seq: msg.seq,
      bytes: msg.data.length,
      ackSubject: ackSubjectOf(msg),
      id,
      redelivered: msg.redelivered,
      pending: msg.info.pending,
      publishedAtMs: msg.info.timestampNanos / 1e6,
      event,
      headers: msg.headers,
    });
  }

  #parse(data: Uint8Array, id: string, streamSeq: number): EventOf<E> | undefined {
    const { contract, logger, name } = this.#config;
    return parseEvent(contract, data, logger, { consumer: name, id, streamSeq });
  }

  /** Reads a held event's payload again from the stream; undefined once the stream no longer has it. */
  async #load(held: HeldDelivery<E>): Promise<HeldDelivery<E> | undefined> {
    const { jsm, streamName } = this.#config;
    const stored = await jsm.streams.getMessage(streamName, { seq: held.seq });
    if (stored === null) return undefined;
    const event = this.#parse(stored.data, held.id, held.seq);
    return event === undefined ? undefined : { ...held, event, headers: stored.header };
  }

  #deliver(held: HeldDelivery<E>, retried: boolean): Promise<DeliveryOutcome> {
    const { contract, handler, logger, name } = this.#config;
    const { event, headers } = held;
    // The dispatcher loads an event before it runs it; one without its payload here is a bug, retried.
    if (event === undefined) return Promise.resolve('failed');
    return deliverEvent({
      consumer: name,
      contract,
      handler,
      event,
      meta: { id: held.id, streamSeq: held.seq, redelivered: held.redelivered || retried, earlierSettled: () => this.#earlierSettled(held.seq) },
      header: (key) => headers?.get(key) || undefined,
      logger,
      backlog: { pending: held.pending, publishedAtMs: held.publishedAtMs },
    });
  }

  /**
   * Confirmed before the key's next event, so once stop() resolves a restarted consumer starts after
   * this one; then the other replicas hear that the key moved on.
   */
  async #ack(held: HeldDelivery<E>): Promise<void> {
    const { nc, logger, name, contract } = this.#config;
    const confirmed = await nc.request(held.ackSubject, ACK, { timeout: ACK_TIMEOUT_MS }).then(
      () => true,
      () => false,
    );
    if (!confirmed) logger.warn({ consumer: name, subject: contract.subject, id: held.id }, 'event ack unconfirmed; it may be delivered again');
    if (this.#settledWord) this.#send(this.#settledSubject, held.key);
  }

  /** Fire and forget: a lost one costs a redelivery or a backoff, never an event. */
  #send(subject: string, payload: Uint8Array | string): void {
    try {
      this.#config.nc.publish(subject, payload);
    } catch {
      // A closed or draining connection: the server redelivers after the ack wait.
    }
  }

  /**
   * Every stream message up to the consumer's ack floor is acked, so the floor reaching the event
   * answers yes. The floor stays where the consumer started until its first ack, and does not count
   * other subjects' messages in between, so otherwise the question is whether any message of the
   * consumer's subject lies between the floor and the event.
   */
  async #earlierSettled(streamSeq: number): Promise<boolean> {
    const { jsm, streamName, name, filter } = this.#config;
    const floor = (await jsm.consumers.info(streamName, name)).ack_floor.stream_seq;
    if (floor >= streamSeq - 1) return true;
    const next = await firstMessageAfter(jsm, streamName, filter, floor);
    return next !== null && next.seq >= streamSeq;
  }
}

/**
 * The delivery's reply subject, where acks go. nats.js's message (JsMsgImpl) exposes it as `reply`;
 * its public JsMsg type leaves it out. Holding the subject instead of the message lets the payload go.
 */
function ackSubjectOf(msg: JsMsg): string {
  return (msg as JsMsg & { readonly reply: string }).reply;
}
