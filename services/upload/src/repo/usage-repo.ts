import type { Queryable } from '@lode/db';

/** Figures (bytes and counts) of a project, or of projects added up, as usage reports them. */
export interface UsageFigures {
  logicalBytes: number;
  storedBytes: number;
  versions: number;
  objects: number;
}

export interface UsageDayRow extends UsageFigures {
  /** YYYY-MM-DD, UTC. */
  day: string;
}

export interface ProjectFigures extends UsageFigures {
  projectId: string;
}

/** What a breakdown row counts: the live versions of some files and the distinct objects they use. */
export interface BreakdownRow extends UsageFigures {
  files: number;
}

export interface ExtensionRow extends BreakdownRow {
  extension: string;
}

const FIGURES = `logical_bytes AS "logicalBytes", stored_bytes AS "storedBytes", versions, objects`;

/**
 * The live versions of the files at `$2` (a path key) or under it as a folder: the set a prefix's
 * breakdown counts. Files by the project's path index, then each file's versions by its own index.
 */
const LIVE_UNDER_PREFIX = `
  SELECT f.id AS file_id, f.path, v.size, v.storage_key
  FROM files f JOIN versions v ON v.file_id = f.id AND v.project_id = $1 AND v.purged_at IS NULL
  WHERE f.project_id = $1 AND ($2::text IS NULL OR f.path_key = $2 OR starts_with(f.path_key, $2 || '/'))`;

/**
 * SQL for storage usage: the deltas every change appends (usage_deltas), their fold into running
 * totals and a daily history, the read of both for a project or an org's projects together,
 * breakdowns read on request, and a recount from scratch that the totals must always equal.
 */
export class UsageRepository {
  /**
   * Moves up to `limit` deltas, oldest first, into the totals of their projects, and records each
   * such project's new totals as its current day's history. SKIP LOCKED and DELETE … RETURNING:
   * replicas folding at once take disjoint deltas, and their updates of one project's totals queue
   * on its row (taken in project order, so two folds never deadlock). Answers the projects folded,
   * with their new totals.
   */
  async fold(q: Queryable, limit: number): Promise<ProjectFigures[]> {
    const { rows } = await q.query<ProjectFigures>(
      `WITH moved AS (
         DELETE FROM usage_deltas WHERE id IN (SELECT id FROM usage_deltas ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING project_id, logical_bytes, stored_bytes, versions, objects
       ),
       sums AS (
         SELECT project_id, sum(logical_bytes)::bigint AS logical_bytes, sum(stored_bytes)::bigint AS stored_bytes,
                sum(versions)::bigint AS versions, sum(objects)::bigint AS objects
         FROM moved GROUP BY project_id
       ),
       totals AS (
         INSERT INTO project_usage AS u (project_id, logical_bytes, stored_bytes, versions, objects, updated_at)
         SELECT project_id, logical_bytes, stored_bytes, versions, objects, now() FROM sums ORDER BY project_id
         ON CONFLICT (project_id) DO UPDATE SET
           logical_bytes = u.logical_bytes + excluded.logical_bytes,
           stored_bytes = u.stored_bytes + excluded.stored_bytes,
           versions = u.versions + excluded.versions,
           objects = u.objects + excluded.objects,
           updated_at = now()
         RETURNING project_id, logical_bytes, stored_bytes, versions, objects
       ),
       days AS (
         INSERT INTO usage_history AS h (project_id, day, logical_bytes, stored_bytes, versions, objects)
         SELECT project_id, (now() AT TIME ZONE 'UTC')::date, logical_bytes, stored_bytes, versions, objects FROM totals ORDER BY project_id
         ON CONFLICT (project_id, day) DO UPDATE SET
           logical_bytes = excluded.logical_bytes, stored_bytes = excluded.stored_bytes, versions = excluded.versions, objects = excluded.objects
       )
       SELECT project_id AS "projectId", ${FIGURES} FROM totals`,
      [limit],
    );
    return rows;
  }

  /**
   * Each project's figures now, a project without usage yet at zero: its totals plus its deltas not
   * folded yet, in one statement, so a fold running meanwhile (deltas deleted, totals raised, in one
   * transaction) is seen whole or not at all. A few index probes per project, whatever it holds.
   */
  async figures(q: Queryable, projectIds: readonly string[]): Promise<ProjectFigures[]> {
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
   * projects' latest history rows on or before it (a day without changes carries the previous one);
   * days before any project's first row have none. One index probe per project and day.
   */
  async pastDays(q: Queryable, projectIds: readonly string[], days: number): Promise<UsageDayRow[]> {
    const { rows } = await q.query<UsageDayRow>(
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

  /** The live versions of the files at `prefixKey` or under it (all files when null): counted on request. */
  async underPrefix(q: Queryable, projectId: string, prefixKey: string | null): Promise<BreakdownRow> {
    const { rows } = await q.query<BreakdownRow>(
      `WITH live AS (${LIVE_UNDER_PREFIX}),
       stored AS (SELECT DISTINCT storage_key, size FROM live)
       SELECT (SELECT count(DISTINCT file_id) FROM live)::bigint AS files, (SELECT count(*) FROM live)::bigint AS versions,
              (SELECT coalesce(sum(size), 0) FROM live)::bigint AS "logicalBytes",
              (SELECT coalesce(sum(size), 0) FROM stored)::bigint AS "storedBytes", (SELECT count(*) FROM stored)::bigint AS objects`,
      [projectId, prefixKey],
    );
    return rows[0];
  }

  /**
   * The same counts by file extension (the last segment's text after its last dot, lower case; ""
   * for a name with none or only a leading dot), the `limit` largest by logical bytes.
   */
  async byExtension(q: Queryable, projectId: string, prefixKey: string | null, limit: number): Promise<ExtensionRow[]> {
    const { rows } = await q.query<ExtensionRow>(
      `WITH live AS (
         SELECT file_id, size, storage_key, lower(coalesce(substring(path from '[^/]\\.([^./]+)$'), '')) AS extension
         FROM (${LIVE_UNDER_PREFIX}) AS l
       ),
       stored AS (
         SELECT extension, sum(size) AS bytes, count(*) AS objects FROM (SELECT DISTINCT extension, storage_key, size FROM live) AS k GROUP BY extension
       )
       SELECT l.extension, count(DISTINCT l.file_id)::bigint AS files, count(*)::bigint AS versions, sum(l.size)::bigint AS "logicalBytes",
              max(s.bytes)::bigint AS "storedBytes", max(s.objects)::bigint AS objects
       FROM live l JOIN stored s ON s.extension = l.extension
       GROUP BY l.extension ORDER BY "logicalBytes" DESC, l.extension LIMIT $3`,
      [projectId, prefixKey, limit],
    );
    return rows;
  }

  /**
   * The project's figures counted from scratch, which the kept totals must always equal: live
   * versions, and the distinct objects the project keeps in storage: every live version's, every
   * content-store object's, and every object marked for collection and not swept yet.
   */
  async recount(q: Queryable, projectId: string): Promise<UsageFigures> {
    const { rows } = await q.query<UsageFigures>(
      `WITH live AS (SELECT size, storage_key FROM versions WHERE project_id = $1 AND purged_at IS NULL),
       stored AS (
         SELECT storage_key, size FROM live
         UNION SELECT storage_key, size FROM blobs WHERE project_id = $1
         UNION SELECT storage_key, size FROM collectable_objects WHERE project_id = $1 AND swept_at IS NULL
       )
       SELECT (SELECT coalesce(sum(size), 0) FROM live)::bigint AS "logicalBytes", (SELECT count(*) FROM live)::bigint AS versions,
              (SELECT coalesce(sum(size), 0) FROM stored)::bigint AS "storedBytes", (SELECT count(*) FROM stored)::bigint AS objects`,
      [projectId],
    );
    return rows[0];
  }

  /** Every project's folded totals, for the gauges a scrape reads. */
  async foldedTotals(q: Queryable): Promise<ProjectFigures[]> {
    const { rows } = await q.query<ProjectFigures>(`SELECT project_id AS "projectId", ${FIGURES} FROM project_usage`);
    return rows;
  }
}
