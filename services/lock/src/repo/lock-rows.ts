/** The rows both lock-service tables answer with: a lock, and who is committing a file. */

export interface LockRow {
  fileId: string;
  path: string;
  userId: string;
  userName: string;
  userAvatarUrl: string | null;
  note: string;
  lockedAt: Date;
}

/** Another user's commit in progress on a file (an unexpired fence). */
export interface FenceHolder {
  fileId: string;
  userId: string;
  userName: string | null;
}

/** A `locks` row (or a function's rows of that type, such as fence_unless_locked's) as a LockRow. */
export const LOCK_COLUMNS = `file_id AS "fileId", path, user_id AS "userId", user_name AS "userName",
                 user_avatar_url AS "userAvatarUrl", note, locked_at AS "lockedAt"`;
