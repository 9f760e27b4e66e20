import type { Queryable } from '@lode/db';

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
  createdAt: Date;
}

/**
 * A file's versions committed on main, newest first, by keyset on the version number. The
 * branch is written as a literal so the planner matches the partial index commit_entries_main_history.
 */
export class HistoryRepository {
  async mainVersions(q: Queryable, projectId: string, fileId: string, before: number | undefined, limit: number): Promise<HistoryRow[]> {
    const { rows } = await q.query<HistoryRow>(
      `SELECT version_id AS id, version, size, sha256, uploader_id AS "uploaderId", uploader_name AS "uploaderName",
              commit_id AS "commitId", storage_key AS "storageKey", path, version_created_at AS "createdAt"
       FROM commit_entries
       WHERE project_id = $1 AND file_id = $2 AND branch = 'main' AND action <> 'delete' AND ($3::int IS NULL OR version < $3)
       ORDER BY version DESC LIMIT $4`,
      [projectId, fileId, before ?? null, limit],
    );
    return rows;
  }
}
