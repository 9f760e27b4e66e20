import { lock } from '@lode/contracts';
import { textList, type NamedStatement, type Queryable } from '@lode/db';
import { committedEventCte } from './lock-event-sql.ts';
import { LOCK_COLUMNS, type LockRow } from './lock-rows.ts';

export interface NewFence {
  fenceId: string;
  projectId: string;
  userId: string;
  userName?: string;
  fileIds: readonly string[];
  ttlMs: number;
}

// Both take no list to size their plans by (the fence's ids travel as one text, or stay in its row),
// so they are prepared once per connection whatever the commit's size.
const FENCE: NamedStatement = {
  name: 'lock.fence',
  text: `SELECT ${LOCK_COLUMNS} FROM fence_unless_locked($1, $2, $3, $4, $5, $6)`,
};

const SETTLE: NamedStatement = {
  name: 'lock.settle',
  text: `WITH fence AS (
     DELETE FROM fences WHERE fence_id = $1 AND project_id = $2 RETURNING user_id, file_ids
   ),
   -- The fence's files joined as rows, not matched with = ANY (fence.file_ids): an array taken from a
   -- row is searched element by element for every lock a plan reads, so a plan that reads the holder's
   -- locks (stale statistics choose it) would grow with the square of a large commit's size.
   released AS (
     DELETE FROM locks l USING fence, unnest(fence.file_ids) AS f(file_id)
     WHERE $3 AND l.project_id = $2 AND l.user_id = fence.user_id AND l.file_id = f.file_id
     RETURNING l.*
   ),
   ${committedEventCte('$2', '$4')}
   SELECT EXISTS (SELECT 1 FROM fence) AS found, (SELECT count(*) FROM released)::int AS "releasedLocks",
          set_config('synchronous_commit', 'off', true) AS "asynchronousCommit"`,
};

/**
 * SQL for the `fences` table: one row per fence, its files in an array. An expired fence counts
 * as gone everywhere, so a commit that crashed before settling blocks nobody once its lifetime is
 * over, whether or not it was purged yet.
 */
export class FencesRepository {
  /**
   * Records the fence unless another user holds a lock on one of its files, and answers those locks:
   * one round trip under the project mutex (fence_unless_locked, migrations 0003 and 0005), so a 25,000-file
   * list crosses the wire once.
   */
  async insertUnlessLocked(q: Queryable, fence: NewFence): Promise<LockRow[]> {
    const { rows } = await q.query<LockRow>(FENCE, [
      fence.fenceId,
      fence.projectId,
      fence.userId,
      fence.userName ?? null,
      fence.ttlMs / 1000,
      textList(fence.fileIds),
    ]);
    return rows;
  }

  /**
   * Deletes the fence and, when `releaseLocks`, its holder's locks on its files (with their
   * lock.changed events); answers whether the fence was still there and how many locks went. One statement, with the file list never leaving
   * the database, and without the project mutex: it only frees files. Its commit does not wait for
   * the WAL to reach the disk (the setting is local to the statement's own transaction): see
   * FenceService.settle for why a crash undoing it is safe.
   */
  async settle(tx: Queryable, projectId: string, fenceId: string, releaseLocks: boolean): Promise<{ found: boolean; releasedLocks: number }> {
    const { rows } = await tx.query<{ found: boolean; releasedLocks: number }>(SETTLE, [fenceId, projectId, releaseLocks, lock.locksChanged.subject]);
    return rows[0];
  }

  async purgeExpired(q: Queryable): Promise<number> {
    const { rowCount } = await q.query('DELETE FROM fences WHERE expires_at <= now()');
    return rowCount ?? 0;
  }
}
