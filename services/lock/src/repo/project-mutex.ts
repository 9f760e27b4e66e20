import type { Queryable } from '@lode/db';

/**
 * Serializes every change to a project's locks and fences until the transaction ends. Under READ
 * COMMITTED a lock request (reads fences, inserts a lock) and a fence (reads locks, inserts fences)
 * running at once would each miss the other's uncommitted row and both succeed; with this taken
 * first, the second waits, and its next statement sees what the first committed.
 */
export async function serializeProject(tx: Queryable, projectId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('lode.locks.' || $1, 0))`, [projectId]);
}
