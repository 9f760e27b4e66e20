import { errors } from '@lode/errors';
import type { Database, NamedStatement, Queryable } from './database.ts';
import { mapPgError } from './pg-errors.ts';

/** An X-Idempotency-Key is scoped to the project and the API key (docs/api.md): two keys never meet. */
export interface IdempotencyScope {
  projectId: string;
  keyId: string;
  key: string;
}

const CLAIM_KEY = `hashtextextended($1 || '.' || $2 || '.' || $3 || '.' || $4, 0)`;

// Every request under a key tries it, so it is prepared once per connection.
const TRY_CLAIM: NamedStatement = { name: 'db.idempotency_try_claim', text: `SELECT pg_try_advisory_xact_lock(${CLAIM_KEY}) AS ok` };

/**
 * Claims the key for the transaction without waiting: false while another request with the same key
 * is running. The claim ends with the transaction, so a crashed request leaves nothing behind.
 * `namespace` keeps the keys of different operations (commits, restores) apart.
 */
export async function tryClaimIdempotencyKey(tx: Queryable, namespace: string, scope: IdempotencyScope): Promise<boolean> {
  const { rows } = await tx.query<{ ok: boolean }>(TRY_CLAIM, claimKey(namespace, scope));
  return rows[0]?.ok === true;
}

/**
 * Runs `work` while holding the key's claim, for operations that span several calls to other
 * services and cannot fit in one transaction. The claim is a session's advisory lock on a connection
 * of its own, not a transaction: no transaction stays open while `work` waits on other services
 * (so neither the idle-in-transaction timeout nor the short deadline of a bus call inside a
 * transaction applies), and `work` writes through the pool, so what it wrote stays even when it
 * fails. A second request with the same key meanwhile gets 409 idempotency_in_progress; a crash
 * releases the claim with the connection.
 */
export async function whileIdempotencyKeyClaimed<T>(db: Database, namespace: string, scope: IdempotencyScope, work: () => Promise<T>): Promise<T> {
  const { client, release } = await db.checkout();
  const key = claimKey(namespace, scope);
  let claimed = false;
  try {
    const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${CLAIM_KEY}) AS ok`, key).catch((error: unknown) => {
      throw mapPgError(error);
    });
    claimed = rows[0]?.ok === true;
    if (!claimed) throw errors.idempotencyInProgress();
    return await work();
  } finally {
    // A connection that may still hold the claim is closed, never handed to another request.
    const unlockFailed = claimed
      ? await client.query(`SELECT pg_advisory_unlock(${CLAIM_KEY})`, key).then(
          () => undefined,
          (error: unknown) => toError(error),
        )
      : undefined;
    release(unlockFailed);
  }
}

function claimKey(namespace: string, scope: IdempotencyScope): string[] {
  return [namespace, scope.projectId, scope.keyId, scope.key];
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A retry must carry the same request: the same key with another body is the client's mistake (422). */
export function replayIdempotent<T>(stored: { requestHash: string; response: T }, requestHash: string): T {
  if (stored.requestHash !== requestHash) throw errors.idempotencyKeyReused();
  return stored.response;
}
