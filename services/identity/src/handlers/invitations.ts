import { sessions } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { InvitationsService } from '../domain/invitations-service.ts';

/** Invitations to an organization: made and revoked by its owners and admins, answered by the person invited. */
export function serveInvitations(bus: Bus, service: InvitationsService): void {
  bus.serve(sessions.inviteMember, ({ viewerId, orgId, email, role }) => service.invite(viewerId, orgId, email, role));
  bus.serve(sessions.orgInvitations, ({ viewerId, orgId, ...query }) => service.orgInvitations(viewerId, orgId, query));
  bus.serve(sessions.revokeInvitation, ({ viewerId, orgId, invitationId }) => service.revoke(viewerId, orgId, invitationId));
  bus.serve(sessions.myInvitations, ({ viewerId }) => service.mine(viewerId));
  bus.serve(sessions.acceptInvitation, ({ viewerId, invitationId }) => service.accept(viewerId, invitationId));
  bus.serve(sessions.declineInvitation, ({ viewerId, invitationId }) => service.decline(viewerId, invitationId));
}
