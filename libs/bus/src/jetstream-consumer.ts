import { setTimeout as delay } from 'node:timers/promises';
import type { NatsConnection } from '@nats-io/transport-node';
import { PubHeaders, type Consumer, type JetStreamManager, type JsMsg, type NextMsgRequest, type SeqMsgRequest } from '@nats-io/jetstream';
import type { EventContract, EventOf } from '@lode/contracts';
import type { Logger } from '@lode/telemetry';
import { DEFAULT_CONCURRENCY, retryDelayMs, type ConsumerOptions, type EventConsumer, type EventHandler, type RetryBackoff } from './events.ts';
import { deliverEvent, parseEvent, type DeliveryOutcome } from './event-delivery.ts';
import { HELD_BYTES, OrderedDispatcher, type HeldEvent } from './ordered-dispatcher.ts';

/**
 * An unacked event is delivered again after this: what a delivery lost with a crashed process or a
 * NATS restart costs. Events held here are kept alive (working) well within it.
 */
export const ACK_WAIT_MS = 8_000;
/** The server-side limit of unacked events of a consumer with an ordering key, across its replicas. */
export const KEYED_MAX_ACK_PENDING = 1024;
/** Events one process holds (in memory, parsed) for a consumer: the largest pull it asks for. */
const HELD_EVENTS = 64;
/** The largest event NATS delivers when the server does not say: its default max_payload. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Events a stalled key keeps in a process; its later ones are parked on the server. */
const STALLED_KEY_HOLD = 8;
/** A parked event comes back after this, later each time it is parked again. */
const PARK_BACKOFF: RetryBackoff = { initialMs: 2_000, maxMs: 60_000 };
/** How long a pull waits for an event on the server before the next one is sent. */
const PULL_EXPIRES_MS = 1_000;
/** Pause after a failed pull (NATS unreachable): short, so the consumer resumes within a second or two of NATS. */
const PULL_RETRY_MS = 250;

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

interface HeldMsg<E extends EventContract> extends HeldEvent {
  msg: JsMsg;
  id: string;
  event: EventOf<E>;
}

/**
 * One durable pull consumer's loop in one process: pulls as many events as the dispatcher has
 * room for and lets it run them by key. Pulls are left to end on the server's side (an event or the
 * expiry), never cancelled: a cancelled pull can race an event the server is already sending, which
 * then waits out the ack wait. The price is that stop() on an idle consumer takes up to PULL_EXPIRES_MS.
 */
export class JetStreamConsumer<E extends EventContract> implements EventConsumer {
  readonly #config: JetStreamConsumerConfig<E>;
  readonly #dispatcher: OrderedDispatcher<HeldMsg<E>>;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #pulling: Promise<void>;
  #stopping = false;

  constructor(config: JetStreamConsumerConfig<E>) {
    this.#config = config;
    const keyed = config.options.orderedBy !== undefined;
    this.#dispatcher = new OrderedDispatcher<HeldMsg<E>>(
      {
        run: (held, retried) => this.#deliver(held, retried),
        settle: (held) => this.#ack(held),
        giveBack: (held, delayMs) => held.msg.nak(delayMs),
      },
      {
        concurrency: keyed ? (config.options.concurrency ?? DEFAULT_CONCURRENCY) : 1,
        capacity: HELD_EVENTS,
        capacityBytes: HELD_BYTES,
        stalledKeyHold: STALLED_KEY_HOLD,
        stallAfterMs: ACK_WAIT_MS,
        parkDelayMs: (held) => retryDelayMs(PARK_BACKOFF, held.msg.info.deliveryCount),
        retry: config.retry,
      },
    );
    // Every held event, queued ones too: otherwise an event waiting behind its key's slow one would be redelivered.
    this.#keepAlive = setInterval(() => {
      for (const held of this.#dispatcher.held()) held.msg.working();
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
        const batch = await consumer.fetch({ max_messages: this.#dispatcher.room(largest), expires: PULL_EXPIRES_MS });
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
    const { contract, logger, name, options } = this.#config;
    const id = msg.headers?.get(PubHeaders.MsgIdHdr) ?? '';
    const event = parseEvent(contract, msg.data, logger, { consumer: name, id, streamSeq: msg.seq });
    if (event === undefined) {
      msg.term();
      return;
    }
    this.#dispatcher.add({ key: options.orderedBy?.(event) ?? '', seq: msg.seq, bytes: msg.data.length, msg, id, event });
  }

  #deliver(held: HeldMsg<E>, retried: boolean): Promise<DeliveryOutcome> {
    const { contract, handler, logger, name } = this.#config;
    const { msg } = held;
    return deliverEvent({
      consumer: name,
      contract,
      handler,
      event: held.event,
      meta: { id: held.id, streamSeq: held.seq, redelivered: msg.redelivered || retried, earlierSettled: () => this.#earlierSettled(held.seq) },
      header: (key) => msg.headers?.get(key) || undefined,
      logger,
      backlog: { pending: msg.info.pending, publishedAtMs: msg.info.timestampNanos / 1e6 },
    });
  }

  /** Confirmed before the key's next event, so once stop() resolves a restarted consumer starts after this one. */
  async #ack(held: HeldMsg<E>): Promise<void> {
    if (await held.msg.ackAck().catch(() => false)) return;
    const { logger, name, contract } = this.#config;
    logger.warn({ consumer: name, subject: contract.subject, id: held.id }, 'event ack unconfirmed; it may be delivered again');
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
    // The server takes next_by_subj with a seq (STREAM.MSG.GET); the client's MsgRequest type leaves it out.
    const query: SeqMsgRequest & NextMsgRequest = { seq: floor + 1, next_by_subj: filter };
    const next = await jsm.streams.getMessage(streamName, query);
    return next !== null && next.seq >= streamSeq;
  }
}
