import { isoTime, type NamedStatement, type Queryable } from '@lode/db';

export interface HistoryRow {
  id: string;
  version: number;
  size: number;
  sha256: string;
  uploaderId: string;
  uploaderName: string;
  commitId: string;
  storageKey: string;
  /** The file's path (it never changes): its download is saved under the last segment. */
  path: string;
  /** ISO 8601, as the reply writes it. */
  createdAt: string;
}

/**
 * A versions page, prepared: every page of every file runs it, and its work (a page of one index
 * range) is as small as its parsing and planning. The branch is written as a literal so the planner
 * matches the partial index commit_entries_main_history; the cursor is a bound of that range with or
 * without a value (no version reaches the int maximum), so the one generic plan Postgres may keep for
 * a prepared statement still starts the range at the cursor rather than filtering from the newest.
 */
const MAIN_VERSIONS: NamedStatement = {
  name: 'commit.main_versions',
  text: `SELECT version_id AS id, version, size, sha256, uploader_id AS "uploaderId", uploader_name AS "uploaderName",
           commit_id AS "commitId", storage_key AS "storageKey", path, ${isoTime('version_created_at')} AS "createdAt"
    FROM commit_entries
    WHERE project_id = $1 AND file_id = $2 AND branch = 'main' AND action <> 'delete' AND version < COALESCE($3::int, 2147483647)
    ORDER BY version DESC LIMIT $4`,
};

/** A file's versions committed on main, newest first, by keyset on the version number. */
export class HistoryRepository {
  async mainVersions(q: Queryable, projectId: string, fileId: string, before: number | undefined, limit: number): Promise<HistoryRow[]> {
    const { rows } = await q.query<HistoryRow>(MAIN_VERSIONS, [projectId, fileId, before ?? null, limit]);
    return rows;
  }
}
