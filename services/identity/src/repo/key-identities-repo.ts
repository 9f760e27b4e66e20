import type { Queryable } from '@lode/db';
import type { Role } from '@lode/contracts';

/** Everything a request needs to know about its key, in one row (the flat identity of spec 2). */
export interface KeyIdentityRow {
  key_id: string;
  device_id: string | null;
  revoked: boolean;
  role: Role | null;
  user_id: string;
  user_name: string;
  user_avatar_url: string | null;
  project_id: string;
  project_name: string;
  project_slug: string;
  project_icon_url: string | null;
  write_rate_per_second: number | null;
  write_rate_burst: number | null;
  org_id: string;
  org_name: string;
  org_slug: string;
}

export class KeysRepository {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  async findIdentityByHash(keyHash: Buffer): Promise<KeyIdentityRow | undefined> {
    const { rows } = await this.#db.query<KeyIdentityRow>(
      `SELECT k.id AS key_id, k.device_id, k.revoked_at IS NOT NULL AS revoked, m.role,
              u.id AS user_id, u.name AS user_name, u.avatar_url AS user_avatar_url,
              p.id AS project_id, p.name AS project_name, p.slug AS project_slug, p.icon_url AS project_icon_url,
              p.write_rate_per_second, p.write_rate_burst,
              o.id AS org_id, o.name AS org_name, o.slug AS org_slug
       FROM api_keys k
       JOIN users u ON u.id = k.user_id
       JOIN projects p ON p.id = k.project_id
       JOIN orgs o ON o.id = p.org_id
       LEFT JOIN memberships m ON m.org_id = o.id AND m.user_id = u.id
       WHERE k.key_hash = $1`,
      [keyHash],
    );
    return rows[0];
  }

  /**
   * Binds an unbound key to a device. The `device_id IS NULL` guard makes it first-writer-wins: of
   * two devices racing, one updates the row; the other's update waits on the row lock, matches
   * nothing, and its follow-up read (a fresh snapshot) sees the winner's id.
   */
  async bindDevice(keyId: string, deviceId: string): Promise<string | null> {
    const bound = await this.#db.query<{ device_id: string }>(
      'UPDATE api_keys SET device_id = $2, device_bound_at = now() WHERE id = $1 AND device_id IS NULL RETURNING device_id',
      [keyId, deviceId],
    );
    if (bound.rows[0]) return bound.rows[0].device_id;
    const { rows } = await this.#db.query<{ device_id: string | null }>('SELECT device_id FROM api_keys WHERE id = $1', [keyId]);
    return rows[0]?.device_id ?? null;
  }
}
