import type { Queryable } from '@lode/db';

/**
 * Serializes the changes that add to a project's locks and fences until the transaction ends. Under
 * READ COMMITTED a lock request (checks fences, inserts a lock) and a fence (checks locks, inserts a
 * fence) running at once would each miss the other's uncommitted row and both succeed; with this
 * taken first, the second waits, and its next statement sees what the first committed. Releases do
 * without it (locks-repo.ts, release).
 *
 * `waitForDisk: false` lets this transaction's COMMIT return before its WAL is flushed (asynchronous
 * commit), for changes that a crash may undo because something else redoes them; the server's own
 * setting stands otherwise. It rides along in the same statement, so it costs no round trip.
 */
export async function serializeProject(tx: Queryable, projectId: string, options: { waitForDisk: boolean } = { waitForDisk: true }): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('lode.locks.' || $1, 0)),
            CASE WHEN NOT $2::boolean THEN set_config('synchronous_commit', 'off', true) END`,
    [projectId, options.waitForDisk],
  );
}
