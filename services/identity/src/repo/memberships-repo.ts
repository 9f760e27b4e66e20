import type { Queryable } from '@lode/db';
import type { Role } from '@lode/contracts';
import type { MembershipRow, OrgRow, UserRow } from './rows.ts';

export type MemberWithUserRow = MembershipRow & Pick<UserRow, 'name' | 'email'>;

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

  /** Changes a member's role; undefined when they are not a member (then nobody is added). */
  async setRole(db: Queryable, orgId: string, userId: string, role: Role): Promise<MembershipRow | undefined> {
    const { rows } = await db.query<MembershipRow>('UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2 RETURNING *', [orgId, userId, role]);
    return rows[0];
  }

  /** Adds a member unless they already are one, whose role then stays as it is. */
  async addUnlessMember(db: Queryable, orgId: string, userId: string, role: Role): Promise<void> {
    await db.query('INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (org_id, user_id) DO NOTHING', [orgId, userId, role]);
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

  /** Every org the user belongs to, with their role: a person belongs to a handful, so no paging. */
  async orgsOf(db: Queryable, userId: string): Promise<(OrgRow & { role: Role })[]> {
    const { rows } = await db.query<OrgRow & { role: Role }>(
      'SELECT o.*, m.role FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = $1 ORDER BY o.name, o.id LIMIT 1000',
      [userId],
    );
    return rows;
  }

  async listWithUsers(db: Queryable, orgId: string, after: string[] | undefined, limit: number): Promise<MemberWithUserRow[]> {
    const { rows } = await db.query<MemberWithUserRow>(
      `SELECT m.*, u.name, u.email FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.org_id = $1 AND ($2::uuid IS NULL OR m.user_id > $2) ORDER BY m.user_id LIMIT $3`,
      [orgId, after?.[0] ?? null, limit],
    );
    return rows;
  }

  /** The member of this org with this user id, or with this email (ignoring case); nobody outside the org is looked up. */
  async findWithUser(db: Queryable, orgId: string, who: { userId: string } | { email: string }): Promise<MemberWithUserRow | undefined> {
    const [match, value] = 'userId' in who ? ['u.id = $2', who.userId] : ['lower(u.email) = lower($2)', who.email];
    const { rows } = await db.query<MemberWithUserRow>(
      `SELECT m.*, u.name, u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND ${match}`,
      [orgId, value],
    );
    return rows[0];
  }

  /** The org's owners, locked: two owners demoting each other at once cannot leave the org with none. */
  async lockOwners(db: Queryable, orgId: string): Promise<number> {
    const { rows } = await db.query<{ user_id: string }>("SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'owner' FOR UPDATE", [orgId]);
    return rows.length;
  }

  async remove(db: Queryable, orgId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]);
    return rowCount === 1;
  }
}
