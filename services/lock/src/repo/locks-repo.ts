import { lock } from '@lode/contracts';
import { preparedForList, type NamedStatement, type Queryable } from '@lode/db';
import { committedEventCte, lockEventCte } from './lock-event-sql.ts';
import { LOCK_COLUMNS, type FenceHolder, type LockRow } from './lock-rows.ts';

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

export interface Acquired {
  taken: LockRow[];
  /** Other users' locks on the files asked for. */
  held: LockRow[];
  /** Other users' commits in progress on the files asked for. */
  fenced: FenceHolder[];
}

export interface LockFilter {
  /** Case-folded (pathKey) prefix. */
  pathKeyPrefix: string | undefined;
  /** Case-folded (pathKey) path: one file's lock. */
  pathKey: string | undefined;
  userId: string | undefined;
  fileId: string | undefined;
}

// A request for a few files takes or releases its locks through prepared statements (preparedForList).
const ACQUIRE: NamedStatement = {
  name: 'lock.acquire',
  text: `WITH r AS (SELECT * FROM acquire_locks($1, $2, $3, $4, $5, $6::uuid[], $7::text[], $8::text[])),
   ${lockEventCte({ name: 'acquired_event', rows: 'r', where: "r.kind = 'taken'", action: 'acquired', byUserId: '$2', byUserName: '$3', project: '$1', subject: '$9' })}
   SELECT kind, ${LOCK_COLUMNS} FROM r`,
};

const RELEASE_BY = { byUserId: '$3', byUserName: '$5::text', project: '$1', subject: '$6', rows: 'released', action: 'released' } as const;
const RELEASE: NamedStatement = {
  name: 'lock.release',
  text: `WITH released AS (
     DELETE FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[]) AND (user_id = $3 OR $4) RETURNING *
   ),
   ${lockEventCte({ ...RELEASE_BY, name: 'released_event', where: 'r.user_id = $3', reason: 'released' })},
   ${lockEventCte({ ...RELEASE_BY, name: 'forced_event', where: 'r.user_id <> $3', reason: 'forced' })}
   SELECT ${LOCK_COLUMNS} FROM released
   UNION ALL
   SELECT ${LOCK_COLUMNS} FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[]) AND NOT (user_id = $3 OR $4)`,
};

// A commit's release of its author's locks, after every commit.
const REMOVE_HOLDERS: NamedStatement = {
  name: 'lock.remove_holders',
  text: `WITH released AS (
     DELETE FROM locks
     WHERE project_id = $1 AND user_id = $2 AND file_id = ANY($3::uuid[]) AND ($4::timestamptz IS NULL OR locked_at < $4)
     RETURNING *
   ),
   ${committedEventCte('$1', '$5')}
   SELECT count(*)::int AS released FROM released`,
};

/** SQL for the `locks` table. Whatever adds a lock holds the project's mutex (migration 0003). */
export class LocksRepository {
  /**
   * Locks the files for the holder, or refreshes (note, time) the holder's own locks on them, unless
   * another user holds or is committing (an unexpired fence) one; answers the locks taken and, for
   * the files left, the other users' locks and fences. One round trip under the project mutex
   * (acquire_locks, migrations 0003 and 0005), which also writes the lock.changed event of the locks taken.
   */
  async acquire(q: Queryable, projectId: string, holder: Holder, note: string, files: readonly FileToLock[]): Promise<Acquired> {
    const { rows } = await q.query<LockRow & { kind: 'taken' | 'held' | 'fenced' }>(preparedForList(ACQUIRE, files.length), [
      projectId,
      holder.userId,
      holder.userName,
      holder.userAvatarUrl,
      note,
      files.map((f) => f.fileId),
      files.map((f) => f.path),
      files.map((f) => f.pathKey),
      lock.locksChanged.subject,
    ]);
    const acquired: Acquired = { taken: [], held: [], fenced: [] };
    for (const { kind, ...row } of rows) {
      if (kind === 'fenced') acquired.fenced.push({ fileId: row.fileId, userId: row.userId, userName: row.userName });
      else acquired[kind].push(row);
    }
    return acquired;
  }

  /**
   * Deletes the caller's locks among the files, or every lock on them with `force`, and answers all
   * the locks the files had: the deleted ones and those left to other users. One statement needs no
   * project mutex: a release only frees files, so a fence or lock request running beside it is right
   * whether it sees the lock or not. It writes lock.changed events: the caller's own locks as
   * `released`, other users' (force) as `forced`.
   */
  async release(q: Queryable, projectId: string, fileIds: readonly string[], caller: { userId: string; userName: string }, force: boolean): Promise<LockRow[]> {
    const { rows } = await q.query<LockRow>(preparedForList(RELEASE, fileIds.length), [
      projectId,
      fileIds,
      caller.userId,
      force,
      caller.userName,
      lock.locksChanged.subject,
    ]);
    return rows;
  }

  /**
   * Releases one holder's locks on the files, only those taken before `lockedBefore` when given:
   * a commit releases the locks its author held, not one taken again after it. Those it releases go
   * out as lock.changed events (reason committed), as many as their size takes (lock-event-sql.ts).
   */
  async removeHolders(q: Queryable, projectId: string, userId: string, fileIds: readonly string[], lockedBefore?: string): Promise<number> {
    const { rows } = await q.query<{ released: number }>(preparedForList(REMOVE_HOLDERS, fileIds.length), [
      projectId,
      userId,
      fileIds,
      lockedBefore ?? null,
      lock.locksChanged.subject,
    ]);
    return rows[0]?.released ?? 0;
  }

  /** Which of these files have a lock: probes of the (project, file) key. */
  async lockedAmong(q: Queryable, projectId: string, fileIds: readonly string[]): Promise<string[]> {
    const { rows } = await q.query<{ file_id: string }>('SELECT file_id FROM locks WHERE project_id = $1 AND file_id = ANY($2::uuid[])', [projectId, fileIds]);
    return rows.map((row) => row.file_id);
  }

  /** Keyset page in (path, file_id) order; `after` is the last row's position. */
  async page(q: Queryable, projectId: string, filter: LockFilter, after: [string, string] | undefined, limit: number): Promise<LockRow[]> {
    const { rows } = await q.query<LockRow>(
      `SELECT ${LOCK_COLUMNS} FROM locks
       WHERE project_id = $1
         AND ($2::text IS NULL OR starts_with(path_key, $2))
         AND ($3::uuid IS NULL OR user_id = $3)
         AND ($4::text IS NULL OR (path, file_id) > ($4, $5::uuid))
         AND ($7::text IS NULL OR path_key = $7)
         AND ($8::uuid IS NULL OR file_id = $8)
       ORDER BY path, file_id LIMIT $6`,
      [
        projectId,
        filter.pathKeyPrefix ?? null,
        filter.userId ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit,
        filter.pathKey ?? null,
        filter.fileId ?? null,
      ],
    );
    return rows;
  }
}
