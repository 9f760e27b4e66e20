import { tryClaimIdempotencyKey, type IdempotencyScope, type NamedStatement, type Queryable } from '@lode/db';
import { COMMIT_CLAIM_NAMESPACE, type StoredOutcome } from './commit-rows.ts';

// A commit under a key runs both, so each is prepared once per connection.
const FIND: NamedStatement = {
  name: 'commit.idempotency_find',
  text: `SELECT request_hash AS "requestHash", response FROM idempotency_keys WHERE project_id = $1 AND key_id = $2 AND idem_key = $3`,
};
const SAVE: NamedStatement = {
  name: 'commit.idempotency_save',
  text: `INSERT INTO idempotency_keys (project_id, key_id, idem_key, request_hash, response) VALUES ($1, $2, $3, $4, $5)`,
};

/** Outcomes of commits made under an X-Idempotency-Key, kept for the retention period. */
export class IdempotencyRepository {
  async find(q: Queryable, scope: IdempotencyScope): Promise<StoredOutcome | undefined> {
    const { rows } = await q.query<StoredOutcome>(FIND, [scope.projectId, scope.keyId, scope.key]);
    return rows[0];
  }

  /** The claim is held by the commit's own transaction (libs/db idempotency). */
  async tryClaim(tx: Queryable, scope: IdempotencyScope): Promise<boolean> {
    return tryClaimIdempotencyKey(tx, COMMIT_CLAIM_NAMESPACE, scope);
  }

  async save(tx: Queryable, scope: IdempotencyScope, outcome: StoredOutcome): Promise<void> {
    await tx.query(SAVE, [scope.projectId, scope.keyId, scope.key, outcome.requestHash, JSON.stringify(outcome.response)]);
  }

  async purgeOlderThan(q: Queryable, ageMs: number): Promise<number> {
    const { rowCount } = await q.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1)`, [ageMs / 1000]);
    return rowCount ?? 0;
  }
}
