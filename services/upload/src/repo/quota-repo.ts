import { isoTime, type Queryable } from '@lode/db';

export interface QuotaRow {
  operatorBytes: number | null;
  projectBytes: number | null;
}

/** A project whose stored bytes just crossed the warning share of its quota. */
export interface CrossedQuota {
  projectId: string;
  storedBytes: number;
  quotaBytes: number;
  quotaSource: 'operator' | 'project';
  at: string;
}

const LIMITS = `operator_bytes AS "operatorBytes", project_bytes AS "projectBytes"`;

/** SQL for project quotas (`project_quotas`) and what an initiate checks against them. */
export class QuotaRepository {
  async limits(q: Queryable, projectId: string): Promise<QuotaRow | undefined> {
    const { rows } = await q.query<QuotaRow>(`SELECT ${LIMITS} FROM project_quotas WHERE project_id = $1`, [projectId]);
    return rows[0];
  }

  /** Sets the operator's quota or the project's own (null removes it), making the project's row if it has none. */
  async set(q: Queryable, projectId: string, whose: 'operator' | 'project', bytes: number | null): Promise<QuotaRow> {
    const column = whose === 'operator' ? 'operator_bytes' : 'project_bytes';
    const { rows } = await q.query<QuotaRow>(
      `INSERT INTO project_quotas (project_id, ${column}) VALUES ($1, $2)
       ON CONFLICT (project_id) DO UPDATE SET ${column} = excluded.${column}, updated_at = now()
       RETURNING ${LIMITS}`,
      [projectId, bytes],
    );
    return rows[0];
  }

  /** Which of these contents would deduplicate now (held, and not marked for collection), as `sha256:size`. */
  async dedupable(q: Queryable, projectId: string, contents: readonly { sha256: string; size: number }[]): Promise<Set<string>> {
    const { rows } = await q.query<{ content: string }>(
      `SELECT b.sha256 || ':' || b.size AS content FROM blobs b
       JOIN unnest($2::text[], $3::bigint[]) AS c(sha256, size) ON b.project_id = $1 AND b.sha256 = c.sha256 AND b.size = c.size
       WHERE NOT EXISTS (SELECT 1 FROM collectable_objects o WHERE o.storage_key = b.storage_key)`,
      [projectId, contents.map((c) => c.sha256), contents.map((c) => c.size)],
    );
    return new Set(rows.map((row) => row.content));
  }

  /**
   * Projects whose folded stored bytes reached `share` of their quota since they were last below it:
   * marked warned in the same statement (a replica running it at once finds them marked, as the row
   * re-check of an UPDATE sees the other's change), so each crossing is answered once. Projects back
   * below it are cleared, to warn again at the next crossing.
   */
  async crossings(tx: Queryable, share: number): Promise<CrossedQuota[]> {
    const { rows } = await tx.query<CrossedQuota>(
      `WITH limits AS (
         SELECT q.project_id, least(q.operator_bytes, q.project_bytes) AS quota_bytes,
                CASE WHEN q.project_bytes IS NULL OR q.operator_bytes <= q.project_bytes THEN 'operator' ELSE 'project' END AS quota_source,
                u.stored_bytes
         FROM project_quotas q JOIN project_usage u ON u.project_id = q.project_id
         WHERE q.operator_bytes IS NOT NULL OR q.project_bytes IS NOT NULL
       ),
       cleared AS (
         UPDATE project_quotas q SET warned_at = NULL FROM limits l
         WHERE q.project_id = l.project_id AND q.warned_at IS NOT NULL AND l.stored_bytes < $1::float8 * l.quota_bytes
       ),
       crossed AS (
         UPDATE project_quotas q SET warned_at = now() FROM limits l
         WHERE q.project_id = l.project_id AND q.warned_at IS NULL AND l.stored_bytes >= $1::float8 * l.quota_bytes
         RETURNING q.project_id, l.stored_bytes, l.quota_bytes, l.quota_source, q.warned_at
       )
       SELECT project_id AS "projectId", stored_bytes AS "storedBytes", quota_bytes AS "quotaBytes", quota_source AS "quotaSource",
              ${isoTime('warned_at')} AS at
       FROM crossed ORDER BY project_id`,
      [share],
    );
    return rows;
  }
}
