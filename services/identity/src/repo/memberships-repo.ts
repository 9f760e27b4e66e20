import type { Queryable } from '@lode/db';
import type { Role } from '@lode/contracts';
import type { MembershipRow } from './rows.ts';

export class MembershipsRepository {
  /** Adding a member twice changes their role: the last call states the intended role. */
  async upsert(db: Queryable, orgId: string, userId: string, role: Role): Promise<MembershipRow> {
    const { rows } = await db.query<MembershipRow>(
      `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role RETURNING *`,
      [orgId, userId, role],
    );
    return rows[0];
  }

  async find(db: Queryable, orgId: string, userId: string): Promise<MembershipRow | undefined> {
    return (await db.query<MembershipRow>('SELECT * FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId])).rows[0];
  }

  async list(db: Queryable, orgId: string, after: string[] | undefined, limit: number): Promise<MembershipRow[]> {
    const { rows } = await db.query<MembershipRow>(
      `SELECT * FROM memberships WHERE org_id = $1 AND ($2::uuid IS NULL OR user_id > $2) ORDER BY user_id LIMIT $3`,
      [orgId, after?.[0] ?? null, limit],
    );
    return rows;
  }
}
