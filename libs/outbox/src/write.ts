import { textList, UNIT_SEPARATOR, type Queryable } from '@lode/db';
import { injectTraceContext } from '@lode/telemetry';

export interface OutboxEvent {
  subject: string;
  /** Unique per event; the stream drops a second publish with the same id. */
  id: string;
  data: unknown;
}

/**
 * Writes events into the service's `outbox` table inside the caller's transaction, so they exist if
 * and only if the change they describe committed. The active trace context is kept with them, so
 * consumers' spans join the request that caused the event even though the relay publishes later.
 */
export async function writeOutbox(tx: Queryable, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  // WITH ORDINALITY keeps the ids (and so the publishing order) in the order the events were given.
  // The payloads go as one text list: a commit's parts are megabytes of JSON, which as an array
  // literal node-pg would escape quote by quote and Postgres unescape again. JSON text holds no raw
  // control character, so the unit separator cannot occur in it.
  await tx.query(
    `INSERT INTO outbox (subject, event_id, payload, trace_context)
     SELECT subject, event_id, payload, $4::jsonb
     FROM unnest(string_to_array($1, ','), string_to_array($2, ','), string_to_array($3, E'\\x1f')) WITH ORDINALITY AS e(subject, event_id, payload, n)
     ORDER BY n`,
    [
      textList(events.map((e) => e.subject)),
      textList(events.map((e) => e.id)),
      textList(
        events.map((e) => JSON.stringify(e.data)),
        UNIT_SEPARATOR,
      ),
      outboxTraceContext(),
    ],
  );
}

/**
 * The active trace context as the outbox's trace_context column holds it (JSON, or null outside a
 * trace), for SQL that writes outbox rows itself (a draft's commit.created parts).
 */
export function outboxTraceContext(): string | null {
  const traceContext: Record<string, string> = {};
  injectTraceContext((key, value) => {
    traceContext[key] = value;
  });
  return Object.keys(traceContext).length > 0 ? JSON.stringify(traceContext) : null;
}
