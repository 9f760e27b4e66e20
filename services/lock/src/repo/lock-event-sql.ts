import { isoTime } from '@lode/db';

/**
 * Bounds of one lock.changed event. A commit may release 25,000 locks at once, with paths of up to
 * 1,024 characters: as one event that is tens of MiB, over NATS's 1 MiB max_payload (and the
 * in-process stream's), which the relay could never publish, holding up every later event of the
 * schema. So a change is written as several events of at most EVENT_LOCKS locks and about
 * EVENT_LOCK_BYTES of them (a lock is a few KiB at most, so an event stays far under 1 MiB).
 */
const EVENT_LOCKS = 500;
const EVENT_LOCK_BYTES = 500 * 1024;
/**
 * Each lock weighs at least this much when locks are cut into events, which caps an event at
 * EVENT_LOCKS locks however short their paths: every lock of an event but its first lies wholly
 * inside the event's EVENT_LOCK_BYTES window of the running sum.
 */
const MIN_LOCK_WEIGHT = EVENT_LOCK_BYTES / EVENT_LOCKS;

export interface LockEventSql {
  /** The CTE's name. */
  name: string;
  /** A CTE before it with the locks table's columns (a DELETE … RETURNING *, acquire_locks' rows). */
  rows: string;
  /** Which of those rows the events list. */
  where?: string;
  action: 'acquired' | 'released';
  reason?: 'released' | 'forced' | 'committed';
  /** SQL expressions (parameters, aggregates over the rows) of who acted, the project and lock.changed's subject. */
  byUserId: string;
  byUserName: string;
  project: string;
  subject: string;
}

/**
 * A CTE that writes the lock.changed events of the statement's rows into the outbox, none when they
 * hold no lock: the change and its events commit together in one statement, so taking or releasing
 * locks stays a single round trip (docs/performance.md, Locks: one round trip). The locks are cut, in
 * path order, into consecutive events bounded in count and bytes (EVENT_LOCKS, EVENT_LOCK_BYTES): a
 * running sum of their JSON sizes numbers each lock's event. The outbox ids follow that order, so
 * the relay publishes a change's events one after the other, before any later change of the project.
 */
export function lockEventCte(event: LockEventSql): string {
  const reason = event.reason === undefined ? '' : `'reason', '${event.reason}',`;
  return `${event.name} AS (
    INSERT INTO outbox (subject, event_id, payload)
    SELECT ${event.subject}, gen_random_uuid()::text, json_build_object(
      'projectId', ${event.project}::uuid,
      'action', '${event.action}',
      ${reason}
      'by', json_build_object('userId', ${event.byUserId}, 'userName', ${event.byUserName}),
      'at', ${isoTime('now()')},
      'locks', json_agg(r.lock ORDER BY r.path, r.file_id)
    )::text
    FROM (
      SELECT l.*, sum(greatest(octet_length(l.lock::text), ${MIN_LOCK_WEIGHT})) OVER (ORDER BY l.path, l.file_id ROWS UNBOUNDED PRECEDING) / ${EVENT_LOCK_BYTES} AS part
      FROM (
        SELECT r.*, json_build_object(
          'fileId', r.file_id, 'path', r.path, 'userId', r.user_id, 'userName', r.user_name, 'note', r.note, 'lockedAt', ${isoTime('r.locked_at')}
        ) AS lock
        FROM ${event.rows} r
        WHERE ${event.where ?? 'true'}
      ) l
    ) r
    GROUP BY r.part
    ORDER BY r.part
  )`;
}

/**
 * The events of a commit's release of its author's locks: `committed_event` over the rows of the CTE
 * `released`, by the author, who held every one of them. `project` and `subject` are SQL expressions.
 */
export const committedEventCte = (project: string, subject: string): string =>
  lockEventCte({
    name: 'committed_event',
    rows: 'released',
    action: 'released',
    reason: 'committed',
    byUserId: 'min(r.user_id::text)',
    byUserName: 'min(r.user_name)',
    project,
    subject,
  });
