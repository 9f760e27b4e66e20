import type { Queryable } from '@lode/db';
import type { Settlement } from '../domain/retry-plan.ts';

export interface ClaimedDelivery {
  seq: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  body: string;
  /** This attempt included. */
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
}

export interface DeliveryRow {
  seq: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** How many due rows a claim looks at per delivery it may take (DeliveriesRepository.claim). */
const SCAN_FACTOR = 10;

/** SQL for `deliveries`: the log of every delivery and the schedule of those still to be sent. */
export class DeliveriesRepository {
  /**
   * Takes up to `limit` due deliveries of enabled webhooks, oldest due first, counting the attempt and
   * moving each one's next attempt `leaseMs` ahead: a replica that dies mid-request leaves it due again
   * after that, and replicas claiming at once skip each other's rows. A webhook gets no more than
   * `perWebhook` sends in flight with those `inFlight` already holds here, so one endpoint's backlog
   * cannot fill every slot. The due rows are looked at in due order, the webhooks already at their cap
   * left out, up to SCAN_FACTOR × limit of them: a claim that finds only one webhook's rows takes its
   * share, and the next claim, with that webhook full, reaches the others.
   */
  async claim(
    q: Queryable,
    request: { limit: number; perWebhook: number; inFlight: ReadonlyMap<string, number>; leaseMs: number },
  ): Promise<ClaimedDelivery[]> {
    const { rows } = await q.query<ClaimedDelivery>(
      `WITH busy AS (
         SELECT * FROM unnest($3::uuid[], $4::int[]) AS b(webhook_id, in_flight)
       ),
       due AS (
         SELECT d.seq, d.webhook_id, d.next_attempt_at FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND NOT w.disabled
           AND NOT EXISTS (SELECT 1 FROM busy b WHERE b.webhook_id = d.webhook_id AND b.in_flight >= $5::int)
         ORDER BY d.next_attempt_at, d.seq
         LIMIT $1::int * ${SCAN_FACTOR}
       ),
       allowed AS (
         SELECT r.seq FROM (
           SELECT due.*, row_number() OVER (PARTITION BY due.webhook_id ORDER BY due.next_attempt_at, due.seq) AS nth FROM due
         ) r LEFT JOIN busy b ON b.webhook_id = r.webhook_id
         WHERE r.nth <= $5::int - coalesce(b.in_flight, 0)
       ),
       claimed AS (
         -- Checked again once locked: another replica may have claimed a row since it was read.
         SELECT d.seq FROM deliveries d
         WHERE d.seq IN (SELECT seq FROM allowed) AND d.status = 'pending' AND d.next_attempt_at <= now()
         ORDER BY d.next_attempt_at, d.seq
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
       FROM claimed, webhooks w
       WHERE d.seq = claimed.seq AND w.id = d.webhook_id
       RETURNING d.seq, d.webhook_id AS "webhookId", d.event_id AS "eventId", d.event_type AS "eventType", d.body, d.attempts,
                 d.created_at AS "createdAt", w.url, w.secret`,
      [request.limit, request.leaseMs / 1000, [...request.inFlight.keys()], [...request.inFlight.values()], request.perWebhook],
    );
    return rows;
  }

  async settle(q: Queryable, seq: string, settlement: Settlement): Promise<void> {
    await q.query(
      `UPDATE deliveries SET
         status = $2,
         last_status = $3,
         last_error = $4,
         next_attempt_at = $5,
         delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE delivered_at END
       WHERE seq = $1`,
      [
        seq,
        settlement.status,
        settlement.lastStatus,
        settlement.status === 'delivered' ? null : settlement.error,
        settlement.status === 'pending' ? settlement.nextAttemptAt : null,
      ],
    );
  }

  /** A ping: delivered like an event, but never recorded on the feed. */
  async queue(q: Queryable, webhookId: string, eventId: string, eventType: string, body: string): Promise<void> {
    await q.query(`INSERT INTO deliveries (webhook_id, event_id, event_type, body, next_attempt_at) VALUES ($1, $2, $3, $4, now())`, [
      webhookId,
      eventId,
      eventType,
      body,
    ]);
  }

  /** Newest first; `before` is the previous page's last seq. */
  async page(q: Queryable, webhookId: string, before: string | undefined, limit: number): Promise<DeliveryRow[]> {
    const { rows } = await q.query<DeliveryRow>(
      `SELECT seq, event_id AS "eventId", event_type AS "eventType", status, attempts, last_status AS "lastStatus", last_error AS "lastError",
              next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", delivered_at AS "deliveredAt"
       FROM deliveries WHERE webhook_id = $1 AND ($2::bigint IS NULL OR seq < $2)
       ORDER BY seq DESC LIMIT $3`,
      [webhookId, before ?? null, limit],
    );
    return rows;
  }

  /** Finished deliveries leave the log after the retention; pending ones stay until settled. */
  async purgeFinishedOlderThan(q: Queryable, retentionMs: number): Promise<number> {
    const { rowCount } = await q.query(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < now() - make_interval(secs => $1)`, [
      retentionMs / 1000,
    ]);
    return rowCount ?? 0;
  }
}
