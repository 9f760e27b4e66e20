import type { Queryable } from '@lode/db';
import { afterClause } from './keyset.ts';
import type { ApiKeyRow } from './rows.ts';

const COLUMNS = 'id, project_id, user_id, key_hint, device_id, device_bound_at, created_at, revoked_at';

/** Key administration; the request path's lookups live in key-identities-repo.ts. */
export class ApiKeysRepository {
  async insert(db: Queryable, k: { id: string; projectId: string; userId: string; keyHash: string; hint: string }): Promise<ApiKeyRow> {
    const { rows } = await db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, project_id, user_id, key_hash, key_hint) VALUES ($1, $2, $3, decode($4, 'hex'), $5) RETURNING ${COLUMNS}`,
      [k.id, k.projectId, k.userId, k.keyHash, k.hint],
    );
    return rows[0];
  }

  /** Revoking twice keeps the first revocation time. */
  async revoke(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0];
  }

  async resetDevice(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(
      `UPDATE api_keys SET device_id = NULL, device_bound_at = NULL WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0];
  }

  async listByProject(db: Queryable, projectId: string, after: string[] | undefined, limit: number): Promise<ApiKeyRow[]> {
    const where = afterClause(after, 3);
    const { rows } = await db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 AND ${where.sql} ORDER BY created_at, id LIMIT $2`,
      [projectId, limit, ...where.params],
    );
    return rows;
  }
}
