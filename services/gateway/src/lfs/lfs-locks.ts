import type { lock } from '@lode/contracts';

/** A Lode lock as the Git LFS locking API shows it: its id is the file's id, its time to the second. */
export interface LfsLock {
  id: string;
  path: string;
  locked_at: string;
  owner: { name: string };
}

export function toLfsLock(held: { fileId: string; path: string; userName: string; lockedAt: string }): LfsLock {
  return { id: held.fileId, path: held.path, locked_at: new Date(held.lockedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'), owner: { name: held.userName } };
}

/** Why a lock could not be taken, as git prints it. */
export function conflictMessage(conflict: lock.LockConflict): string {
  if (conflict.reason === 'locked') return `${conflict.path} is already locked by ${conflict.userName}`;
  return `${conflict.path} is being committed by ${conflict.userName ?? 'another user'}; try again in a few seconds`;
}
