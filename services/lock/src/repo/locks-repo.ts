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
   * Locks the files for the holder, or refreshes (note, time) the holder's own locks on them, skipping
   * files another user holds or is committing (an unexpired fence): one statement, so a request that
   * takes everything costs no read. The rows answered are the ones taken.
   */
  async take(tx: Queryable, projectId: string, holder: Holder, note: string, files: readonly FileToLock[]): Promise<LockRow[]> {
    const { rows } = await tx.query<LockRow>(
      `INSERT INTO locks AS l (project_id, file_id, path, path_key, user_id, user_name, user_avatar_url, note, locked_at)
       SELECT $1, f.file_id, f.path, f.path_key, $2, $3, $4, $5, now()
       FROM unnest($6::uuid[], $7::text[], $8::text[]) AS f(file_id, path, path_key)
       WHERE NOT EXISTS (
         SELECT 1 FROM fences c WHERE c.project_id = $1 AND c.user_id <> $2 AND c.expires_at > now() AND f.file_id = ANY (c.file_ids)
       )
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

  /**
   * Deletes the caller's locks among the files, or every lock on them with `force`, and answers all
   * the locks the files had: the deleted ones and those left to other users. One statement needs no
   * project mutex: a release only frees files, so a fence or lock request running beside it is right
   * whether it sees the lock or not.
   */
  async release(q: Queryable, projectId: string, fileIds: readonly string[], callerId: string, force: boolean): Promise<LockRow[]> {
    const { rows } = await q.query<LockRow>(
      `WITH released AS (
         DELETE FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[]) AND (user_id = $3 OR $4) RETURNING ${LOCK_COLUMNS}
       )
       SELECT * FROM released
       UNION ALL
       SELECT ${LOCK_COLUMNS} FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[]) AND NOT (user_id = $3 OR $4)`,
      [projectId, fileIds, callerId, force],
    );
    return rows;
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
