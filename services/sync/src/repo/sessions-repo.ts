import { LINE_SEPARATOR, textList, type Queryable } from '@lode/db';
import type { sync } from '@lode/contracts';

/** The batches of multi-request sync sessions and the path keys each listed (table `session_batches`). */
export class SessionsRepository {
  /**
   * One row per batch whatever its size, its keys joined by line breaks (never in a key). A retried
   * batch replaces its keys and refreshes the session's age.
   */
  async record(q: Queryable, projectId: string, session: sync.SyncSession, keys: readonly string[]): Promise<void> {
    await q.query(
      `INSERT INTO session_batches (project_id, session_id, batch, path_keys) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, session_id, batch) DO UPDATE SET path_keys = excluded.path_keys, recorded_at = now()`,
      [projectId, session.id, session.batch, textList(keys, LINE_SEPARATOR)],
    );
  }

  /** The batch numbers below `before` that the session has not recorded, or all if it finished. */
  async missingBatches(q: Queryable, projectId: string, sessionId: string, before: number): Promise<number[]> {
    const { rows } = await q.query<{ batch: number }>(
      `SELECT batch FROM generate_series(0, $3 - 1) AS batch
       WHERE NOT EXISTS (SELECT 1 FROM session_batches s
                         WHERE s.project_id = $1 AND s.session_id = $2 AND s.batch = batch.batch AND NOT s.finished)
       ORDER BY batch`,
      [projectId, sessionId, before],
    );
    return rows.map((row) => row.batch);
  }

  /** Its listing is complete: the session is unknown from now on and removed by the next purge. */
  async finish(q: Queryable, projectId: string, sessionId: string): Promise<void> {
    await q.query('UPDATE session_batches SET finished = true WHERE project_id = $1 AND session_id = $2', [projectId, sessionId]);
  }

  /** Removes finished sessions, and those whose client stopped before its last request. */
  async purge(q: Queryable, idleMs: number): Promise<void> {
    await q.query(
      `DELETE FROM session_batches b
       USING (SELECT project_id, session_id FROM session_batches GROUP BY project_id, session_id
              HAVING bool_or(finished) OR max(recorded_at) < now() - make_interval(secs => $1 / 1000.0)) done
       WHERE b.project_id = done.project_id AND b.session_id = done.session_id`,
      [idleMs],
    );
  }
}
