import type { Queryable } from './database.ts';

/**
 * For the rest of the transaction, reads use indexes. A large commit's statements read tables that
 * grow by up to a million rows within the transaction, or faster than autovacuum's statistics follow:
 * on a table they say is empty or tiny (a new deployment's, a new branch's) the planner would read the
 * whole table for each probe. Only for transactions whose every read has its index.
 */
export async function preferIndexScans(tx: Queryable): Promise<void> {
  await tx.query('SET LOCAL enable_seqscan = off');
}
