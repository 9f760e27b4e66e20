import { identity, projectDeletion, sessions } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { AdminService } from './domain/admin-service.ts';
import type { DashboardService } from './domain/dashboard-service.ts';
import type { InvitationsService } from './domain/invitations-service.ts';
import type { KeysService } from './domain/keys-service.ts';
import type { ProjectDeletionService } from './domain/project-deletion-service.ts';
import type { SessionsService } from './domain/sessions-service.ts';

/**
 * The identity service's table: each contract it answers and the domain call that answers it. The
 * session-scoped rows pass the viewer on as given: the dashboard and invitation services apply every
 * authorization rule.
 */
export function identityRpcs({
  keys,
  admin,
  sessions: sessionService,
  dashboard,
  invitations,
  deletions,
}: {
  keys: KeysService;
  admin: AdminService;
  sessions: SessionsService;
  dashboard: DashboardService;
  invitations: InvitationsService;
  deletions: ProjectDeletionService;
}): Rpc[] {
  return [
    rpc(identity.resolveKey, async ({ keyHash }) => ({ identity: await keys.resolve(keyHash) })),
    rpc(identity.bindDevice, async ({ keyId, deviceId }) => ({ deviceId: await keys.bindDevice(keyId, deviceId) })),
    rpc(identity.createKey, ({ projectId, userId }) => keys.create(projectId, userId)),
    rpc(identity.listKeys, ({ projectId, ...query }) => keys.list(projectId, query)),
    rpc(identity.revokeKey, ({ keyId }) => keys.revoke(keyId)),
    rpc(identity.resetDevice, ({ keyId }) => keys.resetDevice(keyId)),

    rpc(identity.createOrg, ({ name, slug }) => admin.createOrg(name, slug)),
    rpc(identity.listOrgs, (query) => admin.listOrgs(query)),
    rpc(identity.createUser, ({ name, avatarUrl, email }) => admin.createUser(name, avatarUrl, email)),
    rpc(identity.setUserEmail, ({ userId, email }) => admin.setUserEmail(userId, email)),
    rpc(identity.listUsers, (query) => admin.listUsers(query)),
    rpc(identity.addMember, ({ orgId, userId, role }) => admin.addMember(orgId, userId, role)),
    rpc(identity.listMembers, ({ orgId, ...query }) => admin.listMembers(orgId, query)),
    rpc(identity.createProject, ({ orgId, ...project }) => admin.createProject(orgId, project)),
    rpc(identity.listProjects, ({ orgId, ...query }) => admin.listProjects(orgId, query)),
    rpc(identity.listStoredProjects, ({ orgId, ...query }) => admin.listStoredProjects(orgId, query)),

    rpc(projectDeletion.deleteProject, ({ actor }) => deletions.deleteByOwner(actor)),
    rpc(projectDeletion.adminDeleteProject, ({ projectId }) => deletions.deleteByOperator(projectId)),
    rpc(projectDeletion.undeleteProject, ({ viewerId, projectId }) => deletions.undeleteByOwner(viewerId, projectId)),
    rpc(projectDeletion.adminUndeleteProject, ({ projectId }) => deletions.undeleteByOperator(projectId)),

    rpc(sessions.createSignInLink, ({ userId }) => sessionService.createSignInLink(userId)),
    rpc(sessions.redeemSignInLink, ({ token }) => sessionService.redeemSignInLink(token)),
    rpc(sessions.signInWithOidc, (claims) => sessionService.signInWithOidc(claims)),
    rpc(sessions.resolveSession, ({ tokenHash, projectId }) => sessionService.resolve(tokenHash, projectId)),
    rpc(sessions.endSession, ({ tokenHash }) => sessionService.end(tokenHash)),

    rpc(sessions.myOrgs, ({ viewerId }) => dashboard.myOrgs(viewerId)),
    rpc(sessions.orgProjects, ({ viewerId, orgId, ...query }) => dashboard.orgProjects(viewerId, orgId, query)),
    rpc(sessions.createOrgProject, ({ viewerId, orgId, name, slug }) => dashboard.createOrgProject(viewerId, orgId, name, slug)),
    rpc(sessions.projectOverview, ({ viewerId, projectId }) => dashboard.projectOverview(viewerId, projectId)),
    rpc(sessions.setProjectWriteLimit, ({ viewerId, projectId, writeRateLimit }) => dashboard.setProjectWriteLimit(viewerId, projectId, writeRateLimit)),
    rpc(sessions.orgMembers, ({ viewerId, orgId, ...query }) => dashboard.orgMembers(viewerId, orgId, query)),
    rpc(sessions.setMemberRole, (request) => dashboard.setMemberRole(request)),
    rpc(sessions.removeMember, ({ viewerId, orgId, userId }) => dashboard.removeMember(viewerId, orgId, userId)),
    rpc(sessions.projectKeys, ({ viewerId, projectId, ...query }) => dashboard.projectKeys(viewerId, projectId, query)),
    rpc(sessions.createProjectKey, ({ viewerId, projectId, userId }) => dashboard.createProjectKey(viewerId, projectId, userId)),
    rpc(sessions.changeProjectKey, (request) => dashboard.changeProjectKey(request)),

    rpc(sessions.inviteMember, ({ viewerId, orgId, email, role }) => invitations.invite(viewerId, orgId, email, role)),
    rpc(sessions.orgInvitations, ({ viewerId, orgId, ...query }) => invitations.orgInvitations(viewerId, orgId, query)),
    rpc(sessions.revokeInvitation, ({ viewerId, orgId, invitationId }) => invitations.revoke(viewerId, orgId, invitationId)),
    rpc(sessions.myInvitations, ({ viewerId }) => invitations.mine(viewerId)),
    rpc(sessions.acceptInvitation, ({ viewerId, invitationId }) => invitations.accept(viewerId, invitationId)),
    rpc(sessions.declineInvitation, ({ viewerId, invitationId }) => invitations.decline(viewerId, invitationId)),
  ];
}
