import { preparedForList, textList, UNIT_SEPARATOR, type NamedStatement, type Queryable } from '@lode/db';
import type { publicEvents } from '@lode/contracts';

export interface FeedPage {
  events: { position: number; event: publicEvents.PublicEvent }[];
  /** The project's last position when the page was read. */
  head: number;
  /** The oldest position still kept, or null when none is. */
  oldest: number | null;
}

/** An event as recorded: its place on its project's feed and the deliveries it queued. */
export interface RecordedEvent {
  position: number;
  queued: number;
}

// Recorded after every internal event, so prepared once per connection for a few events at a time
// (preparedForList): its inputs are probed and inserted row by row whatever the plan.
const RECORD: NamedStatement = {
  name: 'webhooks.record_events',
  text: `WITH input AS (
     SELECT DISTINCT ON (id) project_id, id, type, envelope, n
     FROM unnest(string_to_array($1, ',')::uuid[], string_to_array($2, ',')::uuid[], string_to_array($3, ','), string_to_array($4, E'\\x1f'))
       WITH ORDINALITY AS e(project_id, id, type, envelope, n)
     ORDER BY id, n
   ),
   fresh AS (
     INSERT INTO recorded_event_ids (id) SELECT id FROM input ORDER BY n ON CONFLICT (id) DO NOTHING RETURNING id
   ),
   numbered AS (
     SELECT i.project_id, i.id, i.type, i.envelope,
            row_number() OVER (PARTITION BY i.project_id ORDER BY i.n) AS nth,
            count(*) OVER (PARTITION BY i.project_id) AS count
     FROM input i JOIN fresh f ON f.id = i.id
   ),
   head AS (
     INSERT INTO feed_heads AS h (project_id, last_position)
     SELECT project_id, count FROM numbered WHERE nth = 1 ORDER BY project_id
     ON CONFLICT (project_id) DO UPDATE SET last_position = h.last_position + excluded.last_position
     RETURNING project_id, last_position
   ),
   recorded AS (
     INSERT INTO public_events (project_id, position, id, type, envelope)
     SELECT n.project_id, h.last_position - n.count + n.nth, n.id, n.type, n.envelope::jsonb
     FROM numbered n JOIN head h ON h.project_id = n.project_id
     RETURNING id, position
   ),
   queued AS (
     INSERT INTO deliveries (webhook_id, event_id, event_type, body, next_attempt_at)
     SELECT w.id, r.id, n.type, n.envelope, now()
     FROM recorded r JOIN numbered n ON n.id = r.id JOIN webhooks w ON w.project_id = n.project_id
     WHERE NOT w.disabled AND n.type = ANY (w.events)
     ORDER BY r.position
     ON CONFLICT (webhook_id, event_id) DO NOTHING
     RETURNING event_id
   )
   SELECT r.id, r.position, (SELECT count(*) FROM queued d WHERE d.event_id = r.id)::int AS queued FROM recorded r`,
};

/** SQL for `public_events` and `feed_heads`: the catalogue as recorded, in each project's order. */
export class EventsRepository {
  /**
   * Records events in one statement, each at its project's next position (a project's events in the
   * order given), and queues a delivery of each to every enabled webhook of its project that
   * subscribes to its type. Answers, for each event recorded now, its position and how many
   * deliveries it queued; an event recorded before (an internal event handed over again), known by
   * its id in recorded_event_ids, which outlives the event, is left out. The heads' row locks, held
   * to the commit and taken in project order (so two writers never wait on each other in a cycle),
   * make positions visible in order. Deliveries are queued in position order, which is the order
   * a webhook receives them in.
   */
  async record(q: Queryable, events: readonly publicEvents.PublicEvent[]): Promise<Map<string, RecordedEvent>> {
    const { rows } = await q.query<{ id: string; position: string; queued: number }>(preparedForList(RECORD, events.length), [
      textList(events.map((e) => e.projectId)),
      textList(events.map((e) => e.id)),
      textList(events.map((e) => e.type)),
      textList(
        events.map((e) => JSON.stringify(e)),
        UNIT_SEPARATOR,
      ),
    ]);
    return new Map(rows.map((row) => [row.id, { position: Number(row.position), queued: row.queued }]));
  }

  /** Events after `after` up to the head, of `types` when given; one statement, so head and page agree. */
  async page(q: Queryable, projectId: string, after: number, types: readonly string[] | null, limit: number): Promise<FeedPage> {
    const { rows } = await q.query<{ head: string; oldest: string | null; position: string | null; envelope: publicEvents.PublicEvent | null }>(
      `WITH bounds AS (
         SELECT coalesce((SELECT last_position FROM feed_heads WHERE project_id = $1), 0) AS head,
                (SELECT min(position) FROM public_events WHERE project_id = $1) AS oldest
       )
       SELECT b.head, b.oldest, e.position, e.envelope
       FROM bounds b
       LEFT JOIN LATERAL (
         SELECT position, envelope FROM public_events
         WHERE project_id = $1 AND position > $2 AND position <= b.head AND ($3::text[] IS NULL OR type = ANY ($3))
         ORDER BY position LIMIT $4
       ) e ON true
       ORDER BY e.position`,
      [projectId, after, types, limit],
    );
    const first = rows[0];
    return {
      head: Number(first?.head ?? 0),
      oldest: first?.oldest == null ? null : Number(first.oldest),
      events: rows.flatMap((row) => (row.position === null || row.envelope === null ? [] : [{ position: Number(row.position), event: row.envelope }])),
    };
  }

  /** Drops events past the feed's retention: a client further behind gets a reset. */
  async purgeOlderThan(q: Queryable, retentionMs: number): Promise<number> {
    const { rowCount } = await q.query('DELETE FROM public_events WHERE recorded_at < now() - make_interval(secs => $1)', [retentionMs / 1000]);
    return rowCount ?? 0;
  }

  /** Forgets recorded ids past their retention (domain/retention-plan.ts). */
  async purgeRecordedIdsOlderThan(q: Queryable, retentionMs: number): Promise<number> {
    const { rowCount } = await q.query('DELETE FROM recorded_event_ids WHERE recorded_at < now() - make_interval(secs => $1)', [retentionMs / 1000]);
    return rowCount ?? 0;
  }
}
