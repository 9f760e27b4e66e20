import { errors } from '@lode/errors';
import type { Database, Queryable } from './database.ts';

/** An X-Idempotency-Key is scoped to the project and the API key (docs/api.md): two keys never meet. */
export interface IdempotencyScope {
  projectId: string;
  keyId: string;
  key: string;
}

/**
 * Claims the key for the transaction without waiting: false while another request with the same key
 * is running. The claim ends with the transaction, so a crashed request leaves nothing behind.
 * `namespace` keeps the keys of different operations (commits, restores) apart.
 */
export async function tryClaimIdempotencyKey(tx: Queryable, namespace: string, scope: IdempotencyScope): Promise<boolean> {
  const { rows } = await tx.query<{ ok: boolean }>(
    `SELECT pg_try_advisory_xact_lock(hashtextextended($1 || '.' || $2 || '.' || $3 || '.' || $4, 0)) AS ok`,
    [namespace, scope.projectId, scope.keyId, scope.key],
  );
  return rows[0]?.ok === true;
}

/**
 * Runs `work` while holding the key's claim, for operations that span several calls to other
 * services and cannot fit in one transaction: the transaction only holds the claim, so `work` writes
 * through the pool and what it wrote stays even when it fails. A second request with the same key
 * meanwhile gets 409 idempotency_in_progress; a crash releases the claim with the connection.
 */
export async function whileIdempotencyKeyClaimed<T>(db: Database, namespace: string, scope: IdempotencyScope, work: () => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    if (!(await tryClaimIdempotencyKey(tx, namespace, scope))) throw errors.idempotencyInProgress();
    return work();
  });
}

/** A retry must carry the same request: the same key with another body is the client's mistake (422). */
export function replayIdempotent<T>(stored: { requestHash: string; response: T }, requestHash: string): T {
  if (stored.requestHash !== requestHash) throw errors.idempotencyKeyReused();
  return stored.response;
}
