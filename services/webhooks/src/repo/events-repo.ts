import type { Queryable } from '@lode/db';
import type { publicEvents } from '@lode/contracts';

export interface FeedPage {
  events: { position: number; event: publicEvents.PublicEvent }[];
  /** The project's last position when the page was read. */
  head: number;
  /** The oldest position still kept, or null when none is. */
  oldest: number | null;
}

/** SQL for `public_events` and `feed_heads`: the catalogue as recorded, in each project's order. */
export class EventsRepository {
  /**
   * Records the event at the project's next position and queues a delivery to each enabled webhook of
   * the project that subscribes to its type, in one statement; answers the position, or undefined
   * when the event was recorded before (an internal event handed over again), known by its id in
   * recorded_event_ids, which outlives the event. The head's row lock, held to the commit, makes
   * positions visible in order.
   */
  async record(q: Queryable, event: publicEvents.PublicEvent): Promise<number | undefined> {
    const { rows } = await q.query<{ position: string }>(
      `WITH fresh AS (
         INSERT INTO recorded_event_ids (id) VALUES ($2) ON CONFLICT (id) DO NOTHING RETURNING id
       ),
       head AS (
         INSERT INTO feed_heads AS h (project_id, last_position) SELECT $1, 1 FROM fresh
         ON CONFLICT (project_id) DO UPDATE SET last_position = h.last_position + 1
         RETURNING last_position
       ),
       recorded AS (
         INSERT INTO public_events (project_id, position, id, type, envelope)
         SELECT $1, last_position, $2, $3, $4::text::jsonb FROM head
         RETURNING position
       ),
       queued AS (
         INSERT INTO deliveries (webhook_id, event_id, event_type, body, next_attempt_at)
         SELECT w.id, $2, $3, $4::text, now() FROM webhooks w
         WHERE EXISTS (SELECT 1 FROM recorded) AND w.project_id = $1 AND NOT w.disabled AND $3 = ANY (w.events)
         ON CONFLICT (webhook_id, event_id) DO NOTHING
       )
       SELECT position FROM recorded`,
      [event.projectId, event.id, event.type, JSON.stringify(event)],
    );
    return rows[0] ? Number(rows[0].position) : undefined;
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
