import type { Queryable } from '@lode/db';
import type { Role, sessions } from '@lode/contracts';
import { afterClause } from './keyset.ts';
import type { InvitationRow, OrgRow, UserRow } from './rows.ts';

/** An invitation with its inviter's name and, for the invitee's view, its org. */
export type InvitationWithInviterRow = InvitationRow & { inviter_name: UserRow['name'] };
export type InvitationForInviteeRow = InvitationWithInviterRow & { org_name: OrgRow['name']; org_slug: OrgRow['slug']; org_created_at: OrgRow['created_at'] };

type InvitationState = sessions.InvitationState;

/** 'expired' is not stored: it is a pending invitation past expires_at, by the database's clock. */
const STATE = `CASE WHEN i.state = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.state END AS state`;

/** Invitations read from `source` (a table or a CTE), each with its state as read now and its inviter's name. */
const withInviter = (source: string) =>
  `SELECT i.id, i.org_id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.closed_at, ${STATE}, u.name AS inviter_name
   FROM ${source} i JOIN users u ON u.id = i.invited_by`;

export class InvitationsRepository {
  /** Closes the org's open invitation to this address, if any, as replaced by a new one. */
  async revokeOpenTo(db: Queryable, orgId: string, email: string): Promise<void> {
    await db.query(`UPDATE invitations SET state = 'revoked', closed_at = now() WHERE org_id = $1 AND lower(email) = lower($2) AND state = 'pending'`, [
      orgId,
      email,
    ]);
  }

  async insert(
    db: Queryable,
    i: { id: string; orgId: string; email: string; role: Role; invitedBy: string; ttlMs: number },
  ): Promise<InvitationWithInviterRow> {
    const { rows } = await db.query<InvitationWithInviterRow>(
      `WITH inserted AS (
         INSERT INTO invitations (id, org_id, email, role, invited_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, date_trunc('milliseconds', now()) + $6 * interval '1 millisecond') RETURNING *
       )
       ${withInviter('inserted')}`,
      [i.id, i.orgId, i.email, i.role, i.invitedBy, i.ttlMs],
    );
    return rows[0];
  }

  /** The org's open invitations (pending or expired), oldest first. */
  async listOpen(db: Queryable, orgId: string, after: string[] | undefined, limit: number): Promise<InvitationWithInviterRow[]> {
    const where = afterClause(after, 3);
    const { rows } = await db.query<InvitationWithInviterRow>(
      `SELECT * FROM (${withInviter('invitations')} WHERE i.org_id = $1 AND i.state = 'pending') open
       WHERE ${where.sql} ORDER BY created_at, id LIMIT $2`,
      [orgId, limit, ...where.params],
    );
    return rows;
  }

  /** Revokes the org's invitation if it is still open (pending or expired); false when it is closed. Undefined when the org has no such invitation. */
  async revoke(db: Queryable, orgId: string, id: string): Promise<boolean | undefined> {
    const { rows } = await db.query<{ revoked: boolean }>(
      `WITH found AS (SELECT id FROM invitations WHERE id = $2 AND org_id = $1),
       revoked AS (UPDATE invitations SET state = 'revoked', closed_at = now() WHERE id = $2 AND org_id = $1 AND state = 'pending' RETURNING id)
       SELECT EXISTS (SELECT 1 FROM revoked) AS revoked FROM found`,
      [orgId, id],
    );
    return rows[0]?.revoked;
  }

  /** The pending, unexpired invitations to this address, with their orgs: a person has a handful, so no paging. */
  async pendingTo(db: Queryable, email: string): Promise<InvitationForInviteeRow[]> {
    const { rows } = await db.query<InvitationForInviteeRow>(
      `SELECT w.*, o.name AS org_name, o.slug AS org_slug, o.created_at AS org_created_at
       FROM (${withInviter('invitations')} WHERE lower(i.email) = lower($1) AND i.state = 'pending' AND i.expires_at > now()) w
       JOIN orgs o ON o.id = w.org_id ORDER BY w.created_at, w.id LIMIT 1000`,
      [email],
    );
    return rows;
  }

  /**
   * Closes a pending, unexpired invitation to this address as accepted or declined and answers it;
   * a second attempt, even a concurrent one, matches nothing.
   */
  async close(db: Queryable, id: string, email: string, state: 'accepted' | 'declined'): Promise<InvitationRow | undefined> {
    const { rows } = await db.query<InvitationRow>(
      `UPDATE invitations SET state = $3, closed_at = now()
       WHERE id = $1 AND lower(email) = lower($2) AND state = 'pending' AND expires_at > now() RETURNING *`,
      [id, email, state],
    );
    return rows[0];
  }

  /** The state of an invitation to this address (undefined for any other address). */
  async stateOf(db: Queryable, id: string, email: string): Promise<InvitationState | undefined> {
    const { rows } = await db.query<{ state: InvitationState }>(`SELECT ${STATE} FROM invitations i WHERE i.id = $1 AND lower(i.email) = lower($2)`, [
      id,
      email,
    ]);
    return rows[0]?.state;
  }

  /** Deletes invitations that expired more than `keepMs` ago, spent or not; answers how many. */
  async purgeExpired(db: Queryable, keepMs: number): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM invitations WHERE expires_at < now() - $1 * interval '1 millisecond'`, [keepMs]);
    return rowCount ?? 0;
  }
}
