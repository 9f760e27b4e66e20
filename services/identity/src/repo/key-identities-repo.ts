import { isoTime, type Queryable } from '@lode/db';
import type { identity } from '@lode/contracts';

/** The request path's lookups: a key's whole identity in one query, and its device binding. */
const CALLER_COLUMNS = `u.id AS "userId", u.name AS "userName", u.avatar_url AS "userAvatarUrl",
  p.id AS "projectId", p.name AS "projectName", p.slug AS "projectSlug", p.icon_url AS "projectIconUrl",
  p.write_rate_per_second AS "writeRatePerSecond", p.write_rate_burst AS "writeRateBurst",
  o.id AS "orgId", o.name AS "orgName", o.slug AS "orgSlug",
  ${isoTime('p.purge_after')} AS "projectPurgeAfter",
  ${isoTime('p.purged_at')} AS "projectPurgedAt"`;

export class KeyIdentitiesRepository {
  async findByHash(db: Queryable, keyHash: string): Promise<identity.KeyIdentity | undefined> {
    const { rows } = await db.query<identity.KeyIdentity>(
      `SELECT k.id AS "keyId", k.device_id AS "deviceId", k.revoked_at IS NOT NULL AS revoked, m.role, ${CALLER_COLUMNS}
       FROM api_keys k
       JOIN users u ON u.id = k.user_id
       JOIN projects p ON p.id = k.project_id
       JOIN orgs o ON o.id = p.org_id
       LEFT JOIN memberships m ON m.org_id = o.id AND m.user_id = u.id
       WHERE k.key_hash = decode($1, 'hex')`,
      [keyHash],
    );
    return rows[0];
  }

  /**
   * A session's caller identity in a project, shaped as a key's (the session's id as keyId, no
   * device): found only while the user is a member of the project's org.
   */
  async findForSession(db: Queryable, sessionId: string, userId: string, projectId: string): Promise<identity.KeyIdentity | undefined> {
    const { rows } = await db.query<identity.KeyIdentity>(
      `SELECT $1::uuid AS "keyId", NULL AS "deviceId", false AS revoked, m.role, ${CALLER_COLUMNS}
       FROM projects p
       JOIN orgs o ON o.id = p.org_id
       JOIN memberships m ON m.org_id = o.id AND m.user_id = $2
       JOIN users u ON u.id = m.user_id
       WHERE p.id = $3`,
      [sessionId, userId, projectId],
    );
    return rows[0];
  }

  /** Last use is kept to the minute: a key's lookups come once per gateway cache period, each one a write at most. */
  async touchLastUsed(db: Queryable, keyId: string): Promise<void> {
    await db.query(
      `UPDATE api_keys SET last_used_at = date_trunc('milliseconds', now())
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }

  /**
   * Binds an unbound key to a device. The `device_id IS NULL` guard makes it first-writer-wins: of
   * two devices racing, one updates the row; the other's update waits on the row lock, matches
   * nothing, and its follow-up read (a fresh snapshot) sees the winner's id.
   */
  async bindDevice(db: Queryable, keyId: string, deviceId: string): Promise<string | null> {
    const bound = await db.query<{ device_id: string }>(
      'UPDATE api_keys SET device_id = $2, device_bound_at = now() WHERE id = $1 AND device_id IS NULL RETURNING device_id',
      [keyId, deviceId],
    );
    if (bound.rows[0]) return bound.rows[0].device_id;
    const { rows } = await db.query<{ device_id: string | null }>('SELECT device_id FROM api_keys WHERE id = $1', [keyId]);
    return rows[0]?.device_id ?? null;
  }
}
