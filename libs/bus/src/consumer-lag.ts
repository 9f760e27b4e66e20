import type { JetStreamManager, NextMsgRequest, SeqMsgRequest, StoredMsg } from '@nats-io/jetstream';
import { observeGauges, type Logger } from '@lode/telemetry';

/**
 * How long a scrape waits for the server before it leaves this consumer's series out: a scrape must
 * answer even while NATS is unreachable, and a missing sample says so better than a stale one.
 */
const SAMPLE_TIMEOUT_MS = 2_000;

/** Named here once: the alert rules (k8s/monitoring) query them, and their test reads them from here. */
export const CONSUMER_LAG_GAUGES = {
  events: { name: 'lode.events.consumer.lag.events', description: 'Events the durable consumer has not acknowledged (pending plus in flight)' },
  seconds: {
    name: 'lode.events.consumer.lag.seconds',
    description: 'Age of the oldest event the durable consumer has not acknowledged; 0 when none',
    unit: 's',
  },
};

export interface ConsumerLag {
  /** Events the consumer has not acknowledged: not yet delivered plus delivered and in flight. */
  events: number;
  /** Age of the oldest of them; 0 when there is none, undefined when it could not be read. */
  seconds: number | undefined;
}

export interface ConsumerLagTarget {
  jsm: JetStreamManager;
  streamName: string;
  /** The durable consumer's name. */
  name: string;
  /** Its filter subject on the stream (namespace included). */
  filter: string;
  /** The event's subject without the namespace, for the series' label. */
  subject: string;
  logger: Logger;
}

/** Where the oldest unacknowledged event was found last time, so a stuck consumer's is not read again. */
interface OldestSeen {
  ackFloor: number;
  publishedAtMs: number;
}

/**
 * How far a durable consumer is behind, read from the server. The oldest event not yet acknowledged is
 * the first one matching the filter after the ack floor: everything up to the floor is acknowledged,
 * and the stream also holds other subjects, hence the search by subject rather than floor + 1.
 */
export async function readConsumerLag(
  target: Omit<ConsumerLagTarget, 'logger' | 'subject'>,
  last?: OldestSeen,
): Promise<{ lag: ConsumerLag; oldest?: OldestSeen }> {
  const { jsm, streamName, name, filter } = target;
  const info = await jsm.consumers.info(streamName, name);
  const events = info.num_pending + info.num_ack_pending;
  if (events === 0) return { lag: { events, seconds: 0 } };
  const ackFloor = info.ack_floor.stream_seq;
  let oldest = last?.ackFloor === ackFloor ? last : undefined;
  if (!oldest) {
    const message = await firstMessageAfter(jsm, streamName, filter, ackFloor);
    // Gone meanwhile (acknowledged, or aged out of the stream): no age to report this time.
    if (!message) return { lag: { events, seconds: undefined } };
    oldest = { ackFloor, publishedAtMs: message.time.getTime() };
  }
  // The server's clock stamped the event: a skewed host must not report a negative age.
  return { lag: { events, seconds: Math.max(0, Date.now() - oldest.publishedAtMs) / 1000 }, oldest };
}

/**
 * The first message of the stream matching `filter` stored after `seq`, or null: STREAM.MSG.GET
 * takes next_by_subj with a seq (the first match at or after it); the client's MsgRequest type
 * leaves that combination out.
 */
export function firstMessageAfter(jsm: JetStreamManager, streamName: string, filter: string, seq: number): Promise<StoredMsg | null> {
  const query: SeqMsgRequest & NextMsgRequest = { seq: seq + 1, next_by_subj: filter };
  return jsm.streams.getMessage(streamName, query);
}

/**
 * Observes a consumer's lag as two gauges, read when metrics are collected (a scrape), never on the
 * delivery path. Concurrent scrapes share one read, a read slower than SAMPLE_TIMEOUT_MS or one that
 * fails leaves that scrape without these series, and nothing here throws. Returns the function that
 * stops observing, for when the consumer stops.
 */
export function observeConsumerLag(target: ConsumerLagTarget): () => void {
  const attributes = { 'messaging.consumer.group.name': target.name, 'messaging.destination.name': target.subject };
  let inFlight: Promise<ConsumerLag | undefined> | undefined;
  let oldest: OldestSeen | undefined;

  const sample = (): Promise<ConsumerLag | undefined> => {
    inFlight ??= readConsumerLag(target, oldest)
      .then((read) => {
        oldest = read.oldest;
        return read.lag;
      })
      .catch((error: unknown) => {
        target.logger.debug({ err: error, consumer: target.name }, 'reading the consumer lag failed; this sample is skipped');
        return undefined;
      })
      .finally(() => (inFlight = undefined));
    return inFlight;
  };

  return observeGauges(CONSUMER_LAG_GAUGES, async (observe) => {
    const lag = await withinMs(sample(), SAMPLE_TIMEOUT_MS);
    if (!lag) return;
    observe('events', lag.events, attributes);
    if (lag.seconds !== undefined) observe('seconds', lag.seconds, attributes);
  });
}

/** The promise's value, or undefined once `ms` have passed; the promise itself must never reject. */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
