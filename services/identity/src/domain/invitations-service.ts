import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import type { Database, Queryable } from '@lode/db';
import { managesOrg, type Role } from '@lode/contracts';
import type { InvitationForInviteeRow, InvitationsRepository, InvitationWithInviterRow } from '../repo/invitations-repo.ts';
import { createdAtPosition } from '../repo/keyset.ts';
import type { MembershipsRepository } from '../repo/memberships-repo.ts';
import type { OrgsRepository } from '../repo/orgs-repo.ts';
import type { UsersRepository } from '../repo/users-repo.ts';
import { INVITATION_KEEP_MS, INVITATION_TTL_MS, invitationClosed, invitationRefusal } from './invitation-rules.ts';
import type { Pager, PageQuery } from './pages.ts';
import { viewerRoleIn } from './viewer-role.ts';
import { view } from './views.ts';

const invitedBy = (r: InvitationWithInviterRow) => ({ userId: r.invited_by, userName: r.inviter_name });
const orgInvitationView = (r: InvitationWithInviterRow) => ({
  id: r.id,
  email: r.email,
  role: r.role,
  invitedBy: invitedBy(r),
  createdAt: r.created_at.toISOString(),
  expiresAt: r.expires_at.toISOString(),
  state: r.state,
});
const myInvitationView = (r: InvitationForInviteeRow) => ({
  id: r.id,
  org: view.org({ id: r.org_id, name: r.org_name, slug: r.org_slug, created_at: r.org_created_at }),
  role: r.role,
  invitedBy: invitedBy(r),
  createdAt: r.created_at.toISOString(),
  expiresAt: r.expires_at.toISOString(),
});

/**
 * How a user joins an organization from the dashboard: its owners and admins invite an email address,
 * and the person signed in with that address accepts or declines. Nothing here looks a user up by
 * the address an inviter gives, so no answer to an inviter tells whether the address is a user's.
 */
export class InvitationsService {
  readonly #db: Database;
  readonly #invitations: InvitationsRepository;
  readonly #members: MembershipsRepository;
  readonly #orgs: OrgsRepository;
  readonly #users: UsersRepository;
  readonly #pager: Pager;

  constructor(deps: {
    db: Database;
    invitations: InvitationsRepository;
    members: MembershipsRepository;
    orgs: OrgsRepository;
    users: UsersRepository;
    pager: Pager;
  }) {
    this.#db = deps.db;
    this.#invitations = deps.invitations;
    this.#members = deps.members;
    this.#orgs = deps.orgs;
    this.#users = deps.users;
    this.#pager = deps.pager;
  }

  async invite(viewerId: string, orgId: string, email: string, role: Role) {
    const refusal = invitationRefusal(await viewerRoleIn(this.#members, this.#db, orgId, viewerId), role);
    if (refusal) throw errors.forbidden(refusal);
    const row = await this.#db.transaction(async (tx) => {
      // Only this org's members are looked at: the inviter sees them in the member list anyway.
      if (await this.#members.findWithUser(tx, orgId, { email }))
        throw errors.conflict('This address is already a member of this organization: change their role instead');
      await this.#invitations.revokeOpenTo(tx, orgId, email);
      return this.#invitations.insert(tx, { id: randomUUID(), orgId, email, role, invitedBy: viewerId, ttlMs: INVITATION_TTL_MS });
    });
    return orgInvitationView(row);
  }

  async orgInvitations(viewerId: string, orgId: string, query: PageQuery) {
    await this.#requireManager(viewerId, orgId, 'see invitations');
    return this.#pager.page(
      'invitations',
      query,
      (after, limit) => this.#invitations.listOpen(this.#db, orgId, after, limit),
      createdAtPosition,
      orgInvitationView,
    );
  }

  async revoke(viewerId: string, orgId: string, invitationId: string) {
    await this.#requireManager(viewerId, orgId, 'revoke invitations');
    const revoked = await this.#invitations.revoke(this.#db, orgId, invitationId);
    if (revoked === undefined) throw errors.notFound('Invitation');
    return { revoked };
  }

  async mine(viewerId: string) {
    const email = await this.#emailOf(viewerId);
    return { data: email ? (await this.#invitations.pendingTo(this.#db, email)).map(myInvitationView) : [] };
  }

  async accept(viewerId: string, invitationId: string) {
    return this.#db.transaction(async (tx) => {
      const invitation = await this.#close(tx, viewerId, invitationId, 'accepted');
      await this.#members.addUnlessMember(tx, invitation.org_id, viewerId, invitation.role);
      const org = await this.#orgs.find(tx, invitation.org_id);
      const membership = await this.#members.find(tx, invitation.org_id, viewerId);
      if (!org || !membership) throw errors.notFound('Invitation');
      return { ...view.org(org), role: membership.role };
    });
  }

  async decline(viewerId: string, invitationId: string) {
    await this.#db.transaction((tx) => this.#close(tx, viewerId, invitationId, 'declined'));
    return { declined: true };
  }

  /** Spent and long-expired invitations are never read again: deleted, so the table does not grow forever. */
  purgeExpired() {
    return this.#invitations.purgeExpired(this.#db, INVITATION_KEEP_MS);
  }

  /** Closes a pending invitation to the viewer's address; one to any other address is unknown to them. */
  async #close(tx: Queryable, viewerId: string, invitationId: string, state: 'accepted' | 'declined') {
    const email = await this.#emailOf(viewerId);
    if (!email) throw errors.notFound('Invitation');
    const closed = await this.#invitations.close(tx, invitationId, email, state);
    if (closed) return closed;
    const current = await this.#invitations.stateOf(tx, invitationId, email);
    throw current ? invitationClosed(current) : errors.notFound('Invitation');
  }

  async #emailOf(viewerId: string): Promise<string | null> {
    return (await this.#users.find(this.#db, viewerId))?.email ?? null;
  }

  async #requireManager(viewerId: string, orgId: string, what: string) {
    if (!managesOrg(await viewerRoleIn(this.#members, this.#db, orgId, viewerId))) throw errors.forbidden(`Only owners and admins ${what}`);
  }
}
