/** ISO 8601 in UTC with milliseconds, as JavaScript's toISOString writes it. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface LockEventSql {
  /** The CTE's name. */
  name: string;
  /** A CTE before it with the locks table's columns (a DELETE … RETURNING *, acquire_locks' rows). */
  rows: string;
  /** Which of those rows the event lists. */
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
 * A CTE that writes one lock.changed event into the outbox when the statement's rows hold any lock:
 * the change and its event commit together in one statement, so taking or releasing locks stays a
 * single round trip (docs/performance.md, Locks: one round trip).
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
      'at', ${iso('now()')},
      'locks', json_agg(json_build_object(
        'fileId', r.file_id, 'path', r.path, 'userId', r.user_id, 'userName', r.user_name, 'note', r.note, 'lockedAt', ${iso('r.locked_at')}
      ) ORDER BY r.path)
    )::text
    FROM ${event.rows} r
    WHERE ${event.where ?? 'true'}
    HAVING count(*) > 0
  )`;
}
