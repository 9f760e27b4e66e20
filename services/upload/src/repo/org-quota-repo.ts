import { isoTime, type Queryable } from '@lode/db';

export interface OrgQuotaRow {
  operatorBytes: number | null;
  orgBytes: number | null;
}

/** An org whose projects' folded stored bytes together just crossed the warning share of its quota. */
export interface CrossedOrgQuota {
  orgId: string;
  storedBytes: number;
  quotaBytes: number;
  quotaSource: 'org_operator' | 'org';
  at: string;
}

/** An org's projects, as the identity service answered them. */
export interface OrgProjects {
  orgId: string;
  projectIds: readonly string[];
}

const LIMITS = `operator_bytes AS "operatorBytes", org_bytes AS "orgBytes"`;

/** SQL for org quotas (`org_quotas`); which projects an org holds is always passed in. */
export class OrgQuotaRepository {
  async limits(q: Queryable, orgId: string): Promise<OrgQuotaRow | undefined> {
    const { rows } = await q.query<OrgQuotaRow>(`SELECT ${LIMITS} FROM org_quotas WHERE org_id = $1`, [orgId]);
    return rows[0];
  }

  /** Sets the operator's quota or the org's own (null removes it), making the org's row if it has none. */
  async set(q: Queryable, orgId: string, whose: 'operator' | 'org', bytes: number | null): Promise<OrgQuotaRow> {
    const column = whose === 'operator' ? 'operator_bytes' : 'org_bytes';
    const { rows } = await q.query<OrgQuotaRow>(
      `INSERT INTO org_quotas (org_id, ${column}) VALUES ($1, $2)
       ON CONFLICT (org_id) DO UPDATE SET ${column} = excluded.${column}, updated_at = now()
       RETURNING ${LIMITS}`,
      [orgId, bytes],
    );
    return rows[0];
  }

  /** The orgs with a quota set, or a warning to clear: those whose crossings are looked at. */
  async watched(q: Queryable): Promise<string[]> {
    const { rows } = await q.query<{ org_id: string }>(
      `SELECT org_id FROM org_quotas WHERE operator_bytes IS NOT NULL OR org_bytes IS NOT NULL OR warned_at IS NOT NULL ORDER BY org_id`,
    );
    return rows.map((row) => row.org_id);
  }

  /** These orgs' projects' folded stored bytes together, and the org quota that applies (null when none). */
  async foldedTotals(q: Queryable, orgs: readonly OrgProjects[]): Promise<{ orgId: string; storedBytes: number; quotaBytes: number | null }[]> {
    const pairs = orgs.flatMap((org) => org.projectIds.map((projectId) => [org.orgId, projectId] as const));
    const { rows } = await q.query<{ orgId: string; storedBytes: number; quotaBytes: number | null }>(
      `SELECT q.org_id AS "orgId", coalesce(s.stored_bytes, 0)::bigint AS "storedBytes", least(q.operator_bytes, q.org_bytes) AS "quotaBytes"
       FROM org_quotas q LEFT JOIN (
         SELECT m.org_id, sum(u.stored_bytes) AS stored_bytes
         FROM unnest($1::uuid[], $2::uuid[]) AS m(org_id, project_id) JOIN project_usage u ON u.project_id = m.project_id
         GROUP BY m.org_id
       ) s ON s.org_id = q.org_id
       WHERE q.org_id = ANY($3::uuid[])`,
      [pairs.map(([orgId]) => orgId), pairs.map(([, projectId]) => projectId), orgs.map((org) => org.orgId)],
    );
    return rows;
  }

  /**
   * Of these orgs, those whose projects' folded stored bytes together reached `share` of their quota
   * since they were last below it: marked warned in the same statement (a replica running it at once
   * finds them marked, as the row re-check of an UPDATE sees the other's change), so each crossing is
   * answered once. Orgs back below it (or without a quota now) are cleared, to warn again at the next.
   */
  async crossings(tx: Queryable, share: number, orgs: readonly OrgProjects[]): Promise<CrossedOrgQuota[]> {
    const pairs = orgs.flatMap((org) => org.projectIds.map((projectId) => [org.orgId, projectId] as const));
    const { rows } = await tx.query<CrossedOrgQuota>(
      `WITH stored AS (
         SELECT m.org_id, sum(u.stored_bytes) AS stored_bytes
         FROM unnest($2::uuid[], $3::uuid[]) AS m(org_id, project_id) JOIN project_usage u ON u.project_id = m.project_id
         GROUP BY m.org_id
       ),
       limits AS (
         SELECT q.org_id, least(q.operator_bytes, q.org_bytes) AS quota_bytes,
                CASE WHEN q.org_bytes IS NULL OR q.operator_bytes <= q.org_bytes THEN 'org_operator' ELSE 'org' END AS quota_source,
                coalesce(s.stored_bytes, 0)::bigint AS stored_bytes
         FROM org_quotas q LEFT JOIN stored s ON s.org_id = q.org_id
         WHERE q.org_id = ANY($4::uuid[])
       ),
       cleared AS (
         UPDATE org_quotas q SET warned_at = NULL FROM limits l
         WHERE q.org_id = l.org_id AND q.warned_at IS NOT NULL AND (l.quota_bytes IS NULL OR l.stored_bytes < $1::float8 * l.quota_bytes)
       ),
       crossed AS (
         UPDATE org_quotas q SET warned_at = now() FROM limits l
         WHERE q.org_id = l.org_id AND q.warned_at IS NULL AND l.quota_bytes IS NOT NULL AND l.stored_bytes >= $1::float8 * l.quota_bytes
         RETURNING q.org_id, l.stored_bytes, l.quota_bytes, l.quota_source, q.warned_at
       )
       SELECT org_id AS "orgId", stored_bytes AS "storedBytes", quota_bytes AS "quotaBytes", quota_source AS "quotaSource",
              ${isoTime('warned_at')} AS at
       FROM crossed ORDER BY org_id`,
      [share, pairs.map(([orgId]) => orgId), pairs.map(([, projectId]) => projectId), orgs.map((org) => org.orgId)],
    );
    return rows;
  }
}
