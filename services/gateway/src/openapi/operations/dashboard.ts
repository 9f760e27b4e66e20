import { sessions } from '@lode/contracts';
import { listQuery } from '../../http/admin-bodies.ts';
import { createKeyBody, createProjectBody, invitationBody, memberBody, writeLimitBody } from '../../routes/dashboard.ts';
import type { OperationGroup } from '../operation.ts';

/** Writes send the session's CSRF token (auth/sessions.ts); the identity service decides what each person may do. */
export const dashboardOperations: OperationGroup = {
  tag: 'Dashboard',
  description: "The web dashboard's own routes, for a signed-in person: their organizations, projects, members, invitations, keys and settings.",
  operations: [
    { method: 'get', path: '/api/v1/me/orgs', summary: 'My organizations, with my role', auth: 'session', reply: sessions.myOrgs.reply },
    { method: 'get', path: '/api/v1/orgs/:orgId/projects', summary: "An organization's projects", auth: 'session', query: listQuery, reply: sessions.orgProjects.reply },
    { method: 'post', path: '/api/v1/orgs/:orgId/projects', summary: 'Create a project', auth: 'session', body: createProjectBody, status: 201, reply: sessions.createOrgProject.reply, errors: [409] },
    { method: 'get', path: '/api/v1/orgs/:orgId/members', summary: "An organization's members", auth: 'session', query: listQuery, reply: sessions.orgMembers.reply },
    {
      method: 'post',
      path: '/api/v1/orgs/:orgId/members',
      summary: "Change a member's role",
      description: 'The member is named by `userId` or `email`. Someone who is not a member of this organization is 409 `invitation_required`: they join by accepting an invitation.',
      auth: 'session',
      body: memberBody,
      reply: sessions.setMemberRole.reply,
      errors: [409],
    },
    { method: 'delete', path: '/api/v1/orgs/:orgId/members/:userId', summary: 'Remove a member', auth: 'session', reply: sessions.removeMember.reply, errors: [409] },
    { method: 'get', path: '/api/v1/orgs/:orgId/invitations', summary: "An organization's open invitations", auth: 'session', query: listQuery, reply: sessions.orgInvitations.reply },
    {
      method: 'post',
      path: '/api/v1/orgs/:orgId/invitations',
      summary: 'Invite an email address to the organization',
      description: 'The answer is the same whether or not the address is a user\'s. Valid 7 days; replaces an open invitation to the same address.',
      auth: 'session',
      body: invitationBody,
      status: 201,
      reply: sessions.inviteMember.reply,
      errors: [409],
    },
    { method: 'delete', path: '/api/v1/orgs/:orgId/invitations/:invitationId', summary: 'Revoke an invitation', auth: 'session', reply: sessions.revokeInvitation.reply },
    { method: 'get', path: '/api/v1/me/invitations', summary: 'My pending invitations', auth: 'session', reply: sessions.myInvitations.reply },
    { method: 'post', path: '/api/v1/me/invitations/:invitationId/accept', summary: 'Accept an invitation: join its organization', auth: 'session', reply: sessions.acceptInvitation.reply, errors: [409] },
    { method: 'post', path: '/api/v1/me/invitations/:invitationId/decline', summary: 'Decline an invitation', auth: 'session', reply: sessions.declineInvitation.reply, errors: [409] },
    {
      method: 'get',
      path: '/api/v1/projects/:projectId/overview',
      summary: 'A project, its organization, my role and the write limits in force',
      description:
        "`defaultWriteRateLimit` is what a project without a write rate limit of its own (`project.writeRateLimit` null) gets; `maxWriteRateLimit` is the most its owners and admins may set.",
      auth: 'session',
      reply: sessions.projectOverviewPage,
    },
    { method: 'put', path: '/api/v1/projects/:projectId/write-rate-limit', summary: "Set a project's write rate limit", auth: 'session', body: writeLimitBody, reply: sessions.setProjectWriteLimit.reply },
    { method: 'get', path: '/api/v1/projects/:projectId/keys', summary: "A project's keys I may see", auth: 'session', query: listQuery, reply: sessions.projectKeys.reply },
    { method: 'post', path: '/api/v1/projects/:projectId/keys', summary: 'Make a key (shown once)', auth: 'session', body: createKeyBody, status: 201, reply: sessions.createProjectKey.reply },
    { method: 'delete', path: '/api/v1/projects/:projectId/keys/:keyId', summary: 'Revoke a key', auth: 'session', reply: sessions.changeProjectKey.reply },
    { method: 'post', path: '/api/v1/projects/:projectId/keys/:keyId/reset-device', summary: 'Unbind a key from its device', auth: 'session', reply: sessions.changeProjectKey.reply },
  ],
};
