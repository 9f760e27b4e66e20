import type { Queryable } from '@lode/db';
import { afterClause } from './keyset.ts';
import type { ApiKeyRow } from './rows.ts';

export type ApiKeyWithUserRow = ApiKeyRow & { user_name: string };

const COLUMNS = 'id, project_id, user_id, key_hint, device_id, device_bound_at, created_at, revoked_at, last_used_at';

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
    const { rows } = await db.query<ApiKeyRow>(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
    return rows[0];
  }

  /** Deletes every key of these projects (purged ones: a tombstone keeps no key); answers how many. */
  async deleteOfProjects(db: Queryable, projectIds: readonly string[]): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM api_keys WHERE project_id = ANY($1::uuid[])', [projectIds]);
    return rowCount ?? 0;
  }

  async resetDevice(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(`UPDATE api_keys SET device_id = NULL, device_bound_at = NULL WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
    return rows[0];
  }

  async listByProject(db: Queryable, projectId: string, after: string[] | undefined, limit: number): Promise<ApiKeyRow[]> {
    const where = afterClause(after, 3);
    const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 AND ${where.sql} ORDER BY created_at, id LIMIT $2`, [
      projectId,
      limit,
      ...where.params,
    ]);
    return rows;
  }

  async find(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
    return (await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id])).rows[0];
  }

  /** The dashboard's list: every key of the project, or one user's, with the owner's name. */
  async listWithUsers(db: Queryable, projectId: string, userId: string | null, after: string[] | undefined, limit: number): Promise<ApiKeyWithUserRow[]> {
    const where = afterClause(after, 4);
    const { rows } = await db.query<ApiKeyWithUserRow>(
      `SELECT k.*, u.name AS user_name FROM (
         SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 AND ($3::uuid IS NULL OR user_id = $3) AND ${where.sql}
         ORDER BY created_at, id LIMIT $2
       ) k JOIN users u ON u.id = k.user_id ORDER BY k.created_at, k.id`,
      [projectId, limit, userId, ...where.params],
    );
    return rows;
  }
}
