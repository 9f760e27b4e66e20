import type { lock } from '@lode/contracts';
import type { FenceHolder, LockRow } from '../repo/lock-rows.ts';

/** The Lock as the caller sees it. */
export function toLock(row: LockRow, callerId: string): lock.Lock {
  return {
    fileId: row.fileId,
    path: row.path,
    userId: row.userId,
    userName: row.userName,
    userAvatarUrl: row.userAvatarUrl,
    isMine: row.userId === callerId,
    note: row.note,
    lockedAt: row.lockedAt.toISOString(),
  };
}

/**
 * The holder, their note and the time a commit's 409 file_locked names: the note says
 * what the holder is doing, which is what the refused committer needs to decide whether to wait.
 */
export function lockedFile(row: LockRow): lock.LockedFile {
  return { fileId: row.fileId, path: row.path, userId: row.userId, userName: row.userName, note: row.note, lockedAt: row.lockedAt.toISOString() };
}

/** A file listed twice in one request counts once; the first occurrence keeps its place. */
export function distinct(fileIds: readonly string[]): string[] {
  return [...new Set(fileIds)];
}

/** What a lock request is refused; the files not named here are the caller's to take or refresh. */
export interface AcquirePlan {
  conflicts: lock.LockConflict[];
  notFound: string[];
}

/**
 * The lock lifecycle for one request, in request order: another user's lock, then another
 * user's commit in progress, makes a conflict; a file the upload service does not know in this
 * project is not found (with no more said, so nothing about other projects leaks).
 */
export function planAcquire(
  fileIds: readonly string[],
  paths: ReadonlyMap<string, string>,
  held: readonly LockRow[],
  fenced: readonly FenceHolder[],
  callerId: string,
): AcquirePlan {
  const heldBy = new Map(held.map((row) => [row.fileId, row]));
  const fencedBy = new Map(fenced.map((fence) => [fence.fileId, fence]));
  const plan: AcquirePlan = { conflicts: [], notFound: [] };
  for (const fileId of fileIds) {
    const path = paths.get(fileId);
    const lockRow = heldBy.get(fileId);
    const fence = fencedBy.get(fileId);
    if (path === undefined) plan.notFound.push(fileId);
    else if (lockRow && lockRow.userId !== callerId) plan.conflicts.push({ reason: 'locked', ...toLock(lockRow, callerId) });
    else if (fence) plan.conflicts.push({ reason: 'committing', fileId, path, userId: fence.userId, userName: fence.userName });
  }
  return plan;
}

export interface ReleasePlan {
  release: LockRow[];
  heldByOther: LockRow[];
  /** Files with no lock in this project: either unlocked or unknown here, which only the upload service can tell. */
  unlocked: string[];
}

/** DELETE /locks: the caller's own locks go; another user's only with `force` (checked before, by role). */
export function planRelease(fileIds: readonly string[], held: readonly LockRow[], callerId: string, force: boolean): ReleasePlan {
  const heldBy = new Map(held.map((row) => [row.fileId, row]));
  const plan: ReleasePlan = { release: [], heldByOther: [], unlocked: [] };
  for (const fileId of fileIds) {
    const row = heldBy.get(fileId);
    if (!row) plan.unlocked.push(fileId);
    else if (row.userId === callerId || force) plan.release.push(row);
    else plan.heldByOther.push(row);
  }
  return plan;
}

/** Rows in the order their files were asked for (SQL returns them in its own order). */
export function inRequestOrder(rows: readonly LockRow[], fileIds: readonly string[]): LockRow[] {
  const position = new Map(fileIds.map((id, i) => [id, i]));
  return [...rows].sort((a, b) => (position.get(a.fileId) ?? 0) - (position.get(b.fileId) ?? 0));
}
