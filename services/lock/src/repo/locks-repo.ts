import type { Queryable } from '@lode/db';

export interface LockRow {
  fileId: string;
  path: string;
  userId: string;
  userName: string;
  userAvatarUrl: string | null;
  note: string;
  lockedAt: Date;
}

export interface Holder {
  userId: string;
  userName: string;
  userAvatarUrl: string | null;
}

export interface FileToLock {
  fileId: string;
  path: string;
  pathKey: string;
}

export interface LockFilter {
  /** Case-folded (pathKey) prefix. */
  pathKeyPrefix: string | undefined;
  userId: string | undefined;
}

export const LOCK_COLUMNS = `file_id AS "fileId", path, user_id AS "userId", user_name AS "userName",
                 user_avatar_url AS "userAvatarUrl", note, locked_at AS "lockedAt"`;

/** SQL for the `locks` table. Writers hold the project's mutex (project-mutex.ts). */
export class LocksRepository {
  async heldOn(q: Queryable, projectId: string, fileIds: readonly string[]): Promise<LockRow[]> {
    const { rows } = await q.query<LockRow>(
      `SELECT ${LOCK_COLUMNS} FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[]) ORDER BY path, file_id`,
      [projectId, fileIds],
    );
    return rows;
  }

  /**
   * Locks the files for the holder, or refreshes (note, time) the holder's own locks on them. The
   * WHERE keeps another user's lock untouched even if a caller skipped the conflict check.
   */
  async take(tx: Queryable, projectId: string, holder: Holder, note: string, files: readonly FileToLock[]): Promise<LockRow[]> {
    const { rows } = await tx.query<LockRow>(
      `INSERT INTO locks AS l (project_id, file_id, path, path_key, user_id, user_name, user_avatar_url, note, locked_at)
       SELECT $1, f.file_id, f.path, f.path_key, $2, $3, $4, $5, now()
       FROM unnest($6::uuid[], $7::text[], $8::text[]) AS f(file_id, path, path_key)
       ON CONFLICT (project_id, file_id) DO UPDATE
         SET note = EXCLUDED.note, locked_at = EXCLUDED.locked_at, user_name = EXCLUDED.user_name, user_avatar_url = EXCLUDED.user_avatar_url
         WHERE l.user_id = EXCLUDED.user_id
       RETURNING ${LOCK_COLUMNS}`,
      [
        projectId,
        holder.userId,
        holder.userName,
        holder.userAvatarUrl,
        note,
        files.map((f) => f.fileId),
        files.map((f) => f.path),
        files.map((f) => f.pathKey),
      ],
    );
    return rows;
  }

  async remove(tx: Queryable, projectId: string, fileIds: readonly string[]): Promise<void> {
    await tx.query('DELETE FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[])', [projectId, fileIds]);
  }

  /**
   * Releases one holder's locks on the files, only those taken before `lockedBefore` when given:
   * a commit releases the locks its author held, not one taken again after it.
   */
  async removeHolders(q: Queryable, projectId: string, userId: string, fileIds: readonly string[], lockedBefore?: string): Promise<number> {
    const { rowCount } = await q.query(
      `DELETE FROM locks
       WHERE project_id = $1 AND user_id = $2 AND file_id = ANY($3::uuid[]) AND ($4::timestamptz IS NULL OR locked_at < $4)`,
      [projectId, userId, fileIds, lockedBefore ?? null],
    );
    return rowCount ?? 0;
  }

  /** Keyset page in (path, file_id) order; `after` is the last row's position. */
  async page(q: Queryable, projectId: string, filter: LockFilter, after: [string, string] | undefined, limit: number): Promise<LockRow[]> {
    const { rows } = await q.query<LockRow>(
      `SELECT ${LOCK_COLUMNS} FROM locks
       WHERE project_id = $1
         AND ($2::text IS NULL OR starts_with(path_key, $2))
         AND ($3::uuid IS NULL OR user_id = $3)
         AND ($4::text IS NULL OR (path, file_id) > ($4, $5::uuid))
       ORDER BY path, file_id LIMIT $6`,
      [projectId, filter.pathKeyPrefix ?? null, filter.userId ?? null, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows;
  }
}
