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

/** SQL for `deliveries`: the log of every delivery and the schedule of those still to be sent. */
export class DeliveriesRepository {
  /**
   * Takes up to `limit` due deliveries of enabled webhooks, counting the attempt and moving each one's
   * next attempt `leaseMs` ahead: a replica that dies mid-request leaves it due again after that,
   * and replicas claiming at once skip each other's rows.
   */
  async claim(q: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await q.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT d.seq FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND NOT w.disabled
         ORDER BY d.next_attempt_at, d.seq
         LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
       FROM due, webhooks w
       WHERE d.seq = due.seq AND w.id = d.webhook_id
       RETURNING d.seq, d.webhook_id AS "webhookId", d.event_id AS "eventId", d.event_type AS "eventType", d.body, d.attempts,
                 d.created_at AS "createdAt", w.url, w.secret`,
      [limit, leaseMs / 1000],
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
    await q.query(`INSERT INTO deliveries (webhook_id, event_id, event_type, body, next_attempt_at) VALUES ($1, $2, $3, $4, now())`, [webhookId, eventId, eventType, body]);
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
    const { rowCount } = await q.query(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < now() - make_interval(secs => $1)`, [retentionMs / 1000]);
    return rowCount ?? 0;
  }
}
