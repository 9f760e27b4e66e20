import type { EventContract, EventOf } from '@lode/contracts';
import { extractTraceContext, inSpan, instruments, SpanKind, type Logger } from '@lode/telemetry';
import { EventDeferred, type EventHandler, type EventMeta } from './events.ts';
import { decode } from './wire.ts';

/** What the transport does next: ack and move on, or hand the same event over again (after a backoff for a failure). */
export type DeliveryOutcome = 'handled' | 'failed' | 'deferred';

export interface Delivery<E extends EventContract> {
  consumer: string;
  contract: E;
  handler: EventHandler<E>;
  /** Already parsed with the contract (parseEvent). */
  event: EventOf<E>;
  meta: EventMeta;
  /** Reads the event's trace headers. */
  header: (key: string) => string | undefined;
  logger: Logger;
  /** For the lag metrics: events behind this one not yet taken by the consumer, and when it was published. */
  backlog: { pending: number; publishedAtMs: number };
}

/**
 * What both event streams do with one delivery: run the handler inside a CONSUMER span joined to
 * the producer's trace. Never throws: a handler's error is logged and becomes 'failed', so the
 * transport's retry, not an unhandled rejection, deals with it.
 */
export async function deliverEvent<E extends EventContract>(delivery: Delivery<E>): Promise<DeliveryOutcome> {
  const { consumer, contract, meta, logger } = delivery;
  const context = { subject: contract.subject, consumer, id: meta.id, streamSeq: meta.streamSeq };
  const attributes = {
    'messaging.destination.name': contract.subject,
    'messaging.consumer.group.name': consumer,
    'messaging.message.id': meta.id,
  };
  const parent = extractTraceContext(delivery.header);
  try {
    return await inSpan(`${contract.subject} process`, { kind: SpanKind.CONSUMER, parent, attributes }, async () => {
      try {
        await delivery.handler(delivery.event, meta);
      } catch (error) {
        // Inside the span, so a deferral does not mark it as an error.
        if (!(error instanceof EventDeferred)) throw error;
        logger.debug({ ...context, reason: error.message }, 'event deferred');
        return 'deferred';
      }
      recordLag(delivery);
      return 'handled';
    });
  } catch (error) {
    logger.error({ ...context, err: error, redelivered: meta.redelivered }, 'event handler failed; the event will be retried');
    return 'failed';
  }
}

function recordLag(delivery: Delivery<EventContract>): void {
  const metrics = instruments();
  const attributes = { 'messaging.consumer.group.name': delivery.consumer, 'messaging.destination.name': delivery.contract.subject };
  metrics.consumerPending.record(delivery.backlog.pending, attributes);
  metrics.consumerDelay.record(Math.max(0, Date.now() - delivery.backlog.publishedAtMs) / 1000, attributes);
}

/**
 * The payload parsed with the contract, or undefined for one that breaks it (logged): the
 * transport drops that event for good, so it cannot block the stream. Parsed before the event is
 * queued, because its ordering key comes from the payload.
 */
export function parseEvent<E extends EventContract>(
  contract: E,
  body: Uint8Array,
  logger: Logger,
  context: { consumer: string; id: string; streamSeq: number },
): EventOf<E> | undefined {
  const parsed = parsePayload(contract, body);
  if (parsed.ok) return parsed.event;
  logger.error({ ...context, subject: contract.subject, problem: parsed.problem }, 'event breaks its contract; dropped');
  return undefined;
}

type ParsedPayload<E extends EventContract> = { ok: true; event: EventOf<E> } | { ok: false; problem: unknown };

function parsePayload<E extends EventContract>(contract: E, body: Uint8Array): ParsedPayload<E> {
  let payload: unknown;
  try {
    payload = decode(body);
  } catch (error) {
    return { ok: false, problem: String(error) };
  }
  const parsed = contract.schema.safeParse(payload);
  if (parsed.success) return { ok: true, event: parsed.data as EventOf<E> };
  return { ok: false, problem: parsed.error.issues.slice(0, 5) };
}

/** A key whose earliest held event has waited this long is logged at warn, once a wait, on either transport. */
export const WAITING_WARN_MS = 10_000;

/** The warn line of a key that has waited WAITING_WARN_MS: what it builds for that key is behind. */
export function warnWaiting(logger: Logger, consumer: { consumer: string; subject: string }, held: { key: string; seq: number }, waitedMs: number): void {
  logger.warn(
    { ...consumer, key: held.key, streamSeq: held.seq, waitedMs },
    'an event has waited over 10 s to be handled; what the consumer builds for its key is behind',
  );
}
