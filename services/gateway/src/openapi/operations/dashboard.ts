import { sessions } from '@lode/contracts';
import { listQuery } from '../../http/admin-bodies.ts';
import { createKeyBody, createProjectBody, memberBody, writeLimitBody } from '../../routes/dashboard.ts';
import type { OperationGroup } from '../operation.ts';

/** Writes send the session's CSRF token (auth/sessions.ts); the identity service decides what each person may do. */
export const dashboardOperations: OperationGroup = {
  tag: 'Dashboard',
  description: "The web dashboard's own routes, for a signed-in person: their organizations, projects, members, keys and settings.",
  operations: [
    { method: 'get', path: '/api/v1/me/orgs', summary: 'My organizations, with my role', auth: 'session', reply: sessions.myOrgs.reply },
    { method: 'get', path: '/api/v1/orgs/:orgId/projects', summary: "An organization's projects", auth: 'session', query: listQuery, reply: sessions.orgProjects.reply },
    { method: 'post', path: '/api/v1/orgs/:orgId/projects', summary: 'Create a project', auth: 'session', body: createProjectBody, status: 201, reply: sessions.createOrgProject.reply, errors: [409] },
    { method: 'get', path: '/api/v1/orgs/:orgId/members', summary: "An organization's members", auth: 'session', query: listQuery, reply: sessions.orgMembers.reply },
    { method: 'post', path: '/api/v1/orgs/:orgId/members', summary: "Add a member by email or change a member's role", auth: 'session', body: memberBody, reply: sessions.setMemberRole.reply, errors: [409] },
    { method: 'delete', path: '/api/v1/orgs/:orgId/members/:userId', summary: 'Remove a member', auth: 'session', reply: sessions.removeMember.reply, errors: [409] },
    { method: 'get', path: '/api/v1/projects/:projectId/overview', summary: 'A project, its organization and my role', auth: 'session', reply: sessions.projectOverview.reply },
    { method: 'put', path: '/api/v1/projects/:projectId/write-rate-limit', summary: "Set a project's write rate limit", auth: 'session', body: writeLimitBody, reply: sessions.setProjectWriteLimit.reply },
    { method: 'get', path: '/api/v1/projects/:projectId/keys', summary: "A project's keys I may see", auth: 'session', query: listQuery, reply: sessions.projectKeys.reply },
    { method: 'post', path: '/api/v1/projects/:projectId/keys', summary: 'Make a key (shown once)', auth: 'session', body: createKeyBody, status: 201, reply: sessions.createProjectKey.reply },
    { method: 'delete', path: '/api/v1/projects/:projectId/keys/:keyId', summary: 'Revoke a key', auth: 'session', reply: sessions.changeProjectKey.reply },
    { method: 'post', path: '/api/v1/projects/:projectId/keys/:keyId/reset-device', summary: 'Unbind a key from its device', auth: 'session', reply: sessions.changeProjectKey.reply },
  ],
};
