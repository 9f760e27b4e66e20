import { isoTime, type NamedStatement, type Queryable } from '@lode/db';
import type { PlannedVersion } from '../domain/obliterate-plan.ts';

export interface FileRow {
  id: string;
  path: string;
}

export interface Purger {
  userId: string;
  userName: string;
}

/** Why versions are purged, and by whom: an obliteration, or a retention rule (`rule` per version, its glob; no one for the periodic job). */
export type PurgeRecord =
  { reason: 'obliterate'; by: Purger; purgeId: string } | { reason: 'retention'; by: Purger | null; purgeId: string; rules: readonly string[] };

/** A purged version, as downloads and history report it. */
export interface PurgeRow {
  n: number;
  at: string;
  userId: string | null;
  userName: string | null;
  reason: 'obliterate' | 'retention';
  rule: string | null;
}

const PLANNED = `id, version, size, sha256, storage_key AS "storageKey",
  ${isoTime('created_at')} AS "createdAt"`;

/**
 * Which of a page's (file, version) pairs were purged, prepared: every versions page and download
 * asks it, and its plan is the same probe per pair whatever the list's length.
 */
const PURGES: NamedStatement = {
  name: 'upload.purges',
  text: `SELECT r.n::int AS n, p.*
   FROM unnest($2::uuid[], $3::int[]) WITH ORDINALITY AS r(file_id, version, n)
   CROSS JOIN LATERAL (
     SELECT ${isoTime('purged_at')} AS at, purged_by AS "userId", purged_by_name AS "userName", purge_reason AS reason,
       purge_rule AS rule
     FROM versions WHERE project_id = $1 AND file_id = r.file_id AND version = r.version AND purged_at IS NOT NULL LIMIT 1
   ) p`,
};

/** SQL for obliterations: the versions they purge, the objects they free, and what downloads ask of purges. */
export class ObliterateRepository {
  async fileByPath(q: Queryable, projectId: string, pathKey: string): Promise<FileRow | undefined> {
    const { rows } = await q.query<FileRow>('SELECT id, path FROM files WHERE project_id = $1 AND path_key = $2', [projectId, pathKey]);
    return rows[0];
  }

  async fileById(q: Queryable, projectId: string, fileId: string): Promise<FileRow | undefined> {
    const { rows } = await q.query<FileRow>('SELECT id, path FROM files WHERE project_id = $1 AND id = $2', [projectId, fileId]);
    return rows[0];
  }

  /** The file's live versions (or the one named, if live), newest first. */
  async liveVersions(q: Queryable, projectId: string, fileId: string, version: number | null): Promise<PlannedVersion[]> {
    const { rows } = await q.query<PlannedVersion>(
      `SELECT ${PLANNED} FROM versions
       WHERE project_id = $1 AND file_id = $2 AND ($3::int IS NULL OR version = $3) AND purged_at IS NULL
       ORDER BY version DESC`,
      [projectId, fileId, version],
    );
    return rows;
  }

  /** Whether the file ever had this version (purged or not). */
  async versionExists(q: Queryable, projectId: string, fileId: string, version: number): Promise<boolean> {
    const { rowCount } = await q.query('SELECT 1 FROM versions WHERE project_id = $1 AND file_id = $2 AND version = $3', [projectId, fileId, version]);
    return rowCount === 1;
  }

  /**
   * Which of these objects stay: a live version outside `excluding` (the plan's own) uses them, or
   * their blob is a Git LFS object (pinned). One index probe per object and kind.
   */
  async keptObjects(
    q: Queryable,
    projectId: string,
    objects: readonly { storageKey: string; sha256: string; size: number }[],
    excluding: readonly string[],
  ): Promise<Set<string>> {
    if (objects.length === 0) return new Set();
    const { rows } = await q.query<{ storage_key: string }>(
      `SELECT o.storage_key FROM unnest($2::text[], $3::text[], $4::bigint[]) AS o(storage_key, sha256, size)
       -- LIMIT 1 probes: one index lookup per object, never a join over every version of the table.
       LEFT JOIN LATERAL (
         SELECT 1 AS found FROM versions v
         WHERE v.storage_key = o.storage_key AND v.purged_at IS NULL AND v.project_id = $1 AND v.id <> ALL($5::uuid[]) LIMIT 1
       ) live ON true
       LEFT JOIN LATERAL (
         SELECT 1 AS found FROM blobs b WHERE b.project_id = $1 AND b.sha256 = o.sha256 AND b.size = o.size AND b.storage_key = o.storage_key AND b.pinned LIMIT 1
       ) pin ON true
       WHERE live.found IS NOT NULL OR pin.found IS NOT NULL`,
      [projectId, objects.map((o) => o.storageKey), objects.map((o) => o.sha256), objects.map((o) => o.size), excluding],
    );
    return new Set(rows.map((row) => row.storage_key));
  }

  /**
   * Purges these live versions in one statement, with the project's usage delta: each keeps its row,
   * number and object key, and records who, when, why, by which obliteration or run, and (retention)
   * which rule. Answers those purged.
   */
  async purge(tx: Queryable, projectId: string, versionIds: readonly string[], record: PurgeRecord): Promise<{ at: string; count: number }> {
    const rules = record.reason === 'retention' ? record.rules : versionIds.map(() => null);
    const { rows } = await tx.query<{ at: string; count: number }>(
      `WITH purged AS (
         UPDATE versions v SET purged_at = now(), purged_by = $3, purged_by_name = $4, purge_reason = $6, purge_id = $5, purge_rule = t.rule
         FROM unnest($2::uuid[], $7::text[]) AS t(id, rule)
         WHERE v.project_id = $1 AND v.id = t.id AND v.purged_at IS NULL
         RETURNING v.size
       ),
       -- The objects stay until the collector deletes them: stored bytes go down then, not now.
       usage AS (
         INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
         SELECT $1, -sum(size), 0, -count(*), 0 FROM purged HAVING count(*) > 0
       )
       SELECT ${isoTime('now()')} AS at, (SELECT count(*) FROM purged)::int AS count`,
      [projectId, versionIds, record.by?.userId ?? null, record.by?.userName ?? null, record.purgeId, record.reason, rules],
    );
    return rows[0];
  }

  /** What an obliteration already purged (a retried run), newest first. */
  async purgedBy(q: Queryable, projectId: string, purgeId: string): Promise<(PlannedVersion & { fileId: string; purgedAt: string })[]> {
    const { rows } = await q.query<PlannedVersion & { fileId: string; purgedAt: string }>(
      `SELECT ${PLANNED}, file_id AS "fileId", ${isoTime('purged_at')} AS "purgedAt"
       FROM versions WHERE purge_id = $2 AND project_id = $1 ORDER BY version DESC`,
      [projectId, purgeId],
    );
    return rows;
  }

  /**
   * Takes the project's purge lock until the transaction ends. Two purges (obliterations, retention
   * batches) of versions sharing an object would each see the other's versions still live and
   * neither leave the object to the collector; one at a time, the second sees the first's purge.
   */
  async lockProject(tx: Queryable, projectId: string): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('lode.obliterate.' || $1, 0))`, [projectId]);
  }

  /** The purged ones among these (file, version) pairs, by their 1-based position: probes of the small index of purged versions. */
  async purges(q: Queryable, projectId: string, fileIds: readonly string[], versions: readonly number[]): Promise<PurgeRow[]> {
    const { rows } = await q.query<PurgeRow>(PURGES, [projectId, fileIds, versions]);
    return rows;
  }
}
