import type { Queryable } from '@lode/db';

/** A project's figures (bytes and counts), as usage reports them. */
export interface ProjectFigures {
  projectId: string;
  logicalBytes: number;
  storedBytes: number;
  versions: number;
  objects: number;
}

/** One day of the org's history: its projects' figures that day, added up. */
export interface OrgUsageDay extends Omit<ProjectFigures, 'projectId'> {
  /** YYYY-MM-DD, UTC. */
  day: string;
}

/**
 * SQL for an org's usage: its projects' running totals (and their deltas not folded yet) and their
 * history, read for the project ids passed in. Nothing is counted from versions: each project is a
 * few index probes, whatever it holds.
 */
export class OrgUsageRepository {
  /**
   * Each project's figures now, a project without usage yet at zero: its totals plus its deltas not
   * folded yet, in one statement, so a fold running meanwhile is seen whole or not at all.
   */
  async figuresByProject(q: Queryable, projectIds: readonly string[]): Promise<ProjectFigures[]> {
    const { rows } = await q.query<ProjectFigures>(
      `SELECT p.project_id AS "projectId",
              (coalesce(u.logical_bytes, 0) + coalesce(d.logical_bytes, 0))::bigint AS "logicalBytes",
              (coalesce(u.stored_bytes, 0) + coalesce(d.stored_bytes, 0))::bigint AS "storedBytes",
              (coalesce(u.versions, 0) + coalesce(d.versions, 0))::bigint AS versions,
              (coalesce(u.objects, 0) + coalesce(d.objects, 0))::bigint AS objects
       FROM unnest($1::uuid[]) AS p(project_id)
       LEFT JOIN project_usage u ON u.project_id = p.project_id
       LEFT JOIN (
         SELECT project_id, sum(logical_bytes) AS logical_bytes, sum(stored_bytes) AS stored_bytes, sum(versions) AS versions, sum(objects) AS objects
         FROM usage_deltas WHERE project_id = ANY($1::uuid[]) GROUP BY project_id
       ) d ON d.project_id = p.project_id`,
      [projectIds],
    );
    return rows;
  }

  /**
   * One point per UTC day from `days - 1` days before today up to yesterday, each the sum of the
   * projects' latest history rows on or before it; days before any project's first row have none.
   * One index probe per project and day.
   */
  async pastDays(q: Queryable, projectIds: readonly string[], days: number): Promise<OrgUsageDay[]> {
    const { rows } = await q.query<OrgUsageDay>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, sum(h.logical_bytes)::bigint AS "logicalBytes", sum(h.stored_bytes)::bigint AS "storedBytes",
              sum(h.versions)::bigint AS versions, sum(h.objects)::bigint AS objects
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date - 1, interval '1 day') AS d(day)
       CROSS JOIN unnest($1::uuid[]) AS p(project_id)
       CROSS JOIN LATERAL (
         SELECT logical_bytes, stored_bytes, versions, objects FROM usage_history
         WHERE project_id = p.project_id AND day <= d.day ORDER BY day DESC LIMIT 1
       ) h
       GROUP BY d.day ORDER BY d.day`,
      [projectIds, days],
    );
    return rows;
  }

  /** Today's date as the history's days read it (UTC, the database's clock). */
  async today(q: Queryable): Promise<string> {
    const { rows } = await q.query<{ day: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day`);
    return rows[0].day;
  }
}
