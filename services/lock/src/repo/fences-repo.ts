import type { Queryable } from '@lode/db';
import type { LockRow } from './locks-repo.ts';
import { LOCK_COLUMNS } from './locks-repo.ts';

export interface NewFence {
  fenceId: string;
  projectId: string;
  userId: string;
  userName?: string;
  fileIds: readonly string[];
  ttlMs: number;
}

export interface FenceHolder {
  fileId: string;
  userId: string;
  userName: string | null;
}

/**
 * SQL for the `fences` table: one row per fence, its files in an array. An expired fence counts
 * as gone everywhere, so a commit that crashed before settling blocks nobody once its lifetime is
 * over, whether or not it was purged yet.
 */
export class FencesRepository {
  /**
   * Records the fence unless another user holds a lock on one of its files, and answers those locks:
   * the check and the insert are one statement, so a 25,000-file list crosses the wire once.
   */
  async insertUnlessLocked(tx: Queryable, fence: NewFence): Promise<LockRow[]> {
    // The ids travel as comma-separated text: Postgres splits 25,000 of them several times faster
    // than it parses the array literal node-pg would build (docs/architecture.md, Database).
    const { rows } = await tx.query<LockRow>(
      `WITH held AS (
         SELECT ${LOCK_COLUMNS} FROM locks WHERE project_id = $2 AND file_id = ANY(string_to_array($6, ',')::uuid[]) AND user_id <> $3
       ),
       fenced AS (
         INSERT INTO fences (fence_id, project_id, user_id, user_name, file_ids, expires_at)
         SELECT $1, $2, $3, $4, string_to_array($6, ',')::uuid[], now() + make_interval(secs => $5)
         WHERE NOT EXISTS (SELECT 1 FROM held)
       )
       SELECT * FROM held ORDER BY path, "fileId"`,
      [fence.fenceId, fence.projectId, fence.userId, fence.userName ?? null, fence.ttlMs / 1000, fence.fileIds.join(',')],
    );
    return rows;
  }

  /** Unexpired fences of users other than `userId` on the files, one per file. */
  async activeOfOthers(q: Queryable, projectId: string, fileIds: readonly string[], userId: string): Promise<FenceHolder[]> {
    const { rows } = await q.query<FenceHolder>(
      `SELECT DISTINCT ON (f.file_id) f.file_id AS "fileId", c.user_id AS "userId", c.user_name AS "userName"
       FROM fences c, unnest(c.file_ids) AS f(file_id)
       WHERE c.project_id = $1 AND c.user_id <> $3 AND c.expires_at > now() AND f.file_id = ANY($2::uuid[])
       ORDER BY f.file_id, c.expires_at DESC`,
      [projectId, fileIds, userId],
    );
    return rows;
  }

  /**
   * Deletes the fence and, when `releaseLocks`, its holder's locks on its files; answers whether the
   * fence was still there and how many locks went. One statement, with the file list never leaving
   * the database.
   */
  async settle(tx: Queryable, projectId: string, fenceId: string, releaseLocks: boolean): Promise<{ found: boolean; releasedLocks: number }> {
    const { rows } = await tx.query<{ found: boolean; releasedLocks: number }>(
      `WITH fence AS (
         DELETE FROM fences WHERE fence_id = $1 AND project_id = $2 RETURNING user_id, file_ids
       ),
       released AS (
         DELETE FROM locks l USING fence
         WHERE $3 AND l.project_id = $2 AND l.user_id = fence.user_id AND l.file_id = ANY (fence.file_ids)
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM fence) AS found, (SELECT count(*) FROM released)::int AS "releasedLocks"`,
      [fenceId, projectId, releaseLocks],
    );
    return rows[0];
  }

  async purgeExpired(q: Queryable): Promise<number> {
    const { rowCount } = await q.query('DELETE FROM fences WHERE expires_at <= now()');
    return rowCount ?? 0;
  }
}
