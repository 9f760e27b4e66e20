import type { IdempotencyScope, Queryable } from '@lode/db';
import type { restore } from '@lode/contracts';
import type { RestorePlan } from '../domain/restore-plan.ts';

export interface NewRestoreRequest {
  id: string;
  projectId: string;
  keyId: string;
  userId: string;
  idemKey: string | null;
  requestHash: string;
  fileCount: number;
}

/** What a retry needs: the request's fingerprint and how far it got. */
export interface RestoreRequest {
  id: string;
  requestHash: string;
  plan: RestorePlan | null;
  response: restore.RestoreResult | null;
}

const COLUMNS = 'id, request_hash AS "requestHash", plan, response';

/** Restore requests: the idempotency record of each and, once the key has expired, its audit trail. */
export class RestoreRequestsRepository {
  async insert(q: Queryable, r: NewRestoreRequest): Promise<RestoreRequest> {
    const { rows } = await q.query<RestoreRequest>(
      `INSERT INTO restore_requests (id, project_id, key_id, user_id, idem_key, request_hash, file_count)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [r.id, r.projectId, r.keyId, r.userId, r.idemKey, r.requestHash, r.fileCount],
    );
    return rows[0];
  }

  async findByKey(q: Queryable, scope: IdempotencyScope): Promise<RestoreRequest | undefined> {
    const { rows } = await q.query<RestoreRequest>(`SELECT ${COLUMNS} FROM restore_requests WHERE project_id = $1 AND key_id = $2 AND idem_key = $3`, [
      scope.projectId,
      scope.keyId,
      scope.key,
    ]);
    return rows[0];
  }

  async savePlan(q: Queryable, id: string, plan: RestorePlan): Promise<void> {
    await q.query(`UPDATE restore_requests SET state = 'prepared', plan = $2, updated_at = now() WHERE id = $1`, [id, JSON.stringify(plan)]);
  }

  async finish(q: Queryable, id: string, result: restore.RestoreResult): Promise<void> {
    await q.query(`UPDATE restore_requests SET state = 'done', response = $2, commit_id = $3, sequence_num = $4, updated_at = now() WHERE id = $1`, [
      id,
      JSON.stringify(result),
      result.commitId,
      result.sequenceNum,
    ]);
  }

  /**
   * Past the retention period a key may be used again and nothing will be replayed: the key, plan and
   * response go; who restored how many files, when, and into which commit stay.
   */
  async releaseOlderThan(q: Queryable, ageMs: number): Promise<number> {
    const { rowCount } = await q.query(
      `UPDATE restore_requests SET idem_key = NULL, plan = NULL, response = NULL
       WHERE created_at < now() - make_interval(secs => $1) AND (idem_key IS NOT NULL OR plan IS NOT NULL OR response IS NOT NULL)`,
      [ageMs / 1000],
    );
    return rowCount ?? 0;
  }
}
