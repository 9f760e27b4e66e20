import type { Queryable } from '@lode/db';

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
 * SQL for the `fences` table. An expired fence counts as gone everywhere, so a commit that crashed
 * before settling blocks nobody once its lifetime is over, whether or not it was purged yet.
 */
export class FencesRepository {
  async insert(tx: Queryable, fence: NewFence): Promise<void> {
    await tx.query(
      `INSERT INTO fences (fence_id, project_id, file_id, user_id, user_name, expires_at)
       SELECT $1, $2, file_id, $3, $4, now() + make_interval(secs => $5) FROM unnest($6::uuid[]) AS file_id`,
      [fence.fenceId, fence.projectId, fence.userId, fence.userName ?? null, fence.ttlMs / 1000, fence.fileIds],
    );
  }

  /** Unexpired fences of users other than `userId` on the files, one per file. */
  async activeOfOthers(q: Queryable, projectId: string, fileIds: readonly string[], userId: string): Promise<FenceHolder[]> {
    const { rows } = await q.query<FenceHolder>(
      `SELECT DISTINCT ON (file_id) file_id AS "fileId", user_id AS "userId", user_name AS "userName" FROM fences
       WHERE project_id = $1 AND file_id = ANY($2::uuid[]) AND user_id <> $3 AND expires_at > now()
       ORDER BY file_id, expires_at DESC`,
      [projectId, fileIds, userId],
    );
    return rows;
  }

  /** Deletes the fence and answers whose it was and what it covered; undefined if already gone. */
  async remove(tx: Queryable, projectId: string, fenceId: string): Promise<{ userId: string; fileIds: string[] } | undefined> {
    const { rows } = await tx.query<{ user_id: string; file_id: string }>(
      'DELETE FROM fences WHERE fence_id = $1 AND project_id = $2 RETURNING user_id, file_id',
      [fenceId, projectId],
    );
    return rows.length === 0 ? undefined : { userId: rows[0].user_id, fileIds: rows.map((r) => r.file_id) };
  }

  async purgeExpired(q: Queryable): Promise<number> {
    const { rowCount } = await q.query('DELETE FROM fences WHERE expires_at <= now()');
    return rowCount ?? 0;
  }
}
