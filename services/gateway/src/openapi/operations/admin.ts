import { identity } from '@lode/contracts';
import { addMemberBody, createKeyBody, createOrgBody, createProjectBody, createUserBody, listQuery, setUserEmailBody } from '../../http/admin-bodies.ts';
import type { OperationGroup } from '../operation.ts';

export const adminOperations: OperationGroup = {
  tag: 'Admin',
  description: "The operators' API: organizations, users, members, projects and keys (docs/api.md, Admin API).",
  operations: [
    { method: 'post', path: '/admin/v1/orgs', summary: 'Create an organization', auth: 'admin', body: createOrgBody, status: 201, reply: identity.createOrg.reply, errors: [409] },
    { method: 'get', path: '/admin/v1/orgs', summary: 'List organizations', auth: 'admin', query: listQuery, reply: identity.listOrgs.reply },
    { method: 'post', path: '/admin/v1/users', summary: 'Create a user', auth: 'admin', body: createUserBody, status: 201, reply: identity.createUser.reply, errors: [409] },
    { method: 'get', path: '/admin/v1/users', summary: 'List users', auth: 'admin', query: listQuery, reply: identity.listUsers.reply },
    {
      method: 'patch',
      path: '/admin/v1/users/:userId',
      summary: "Set or clear a user's email (how OpenID Connect sign-in finds them)",
      auth: 'admin',
      body: setUserEmailBody,
      reply: identity.setUserEmail.reply,
      errors: [409],
    },
    {
      method: 'post',
      path: '/admin/v1/orgs/:orgId/members',
      summary: 'Add a member (or change their role)',
      auth: 'admin',
      body: addMemberBody,
      status: 201,
      reply: identity.addMember.reply,
    },
    { method: 'get', path: '/admin/v1/orgs/:orgId/members', summary: "List an organization's members", auth: 'admin', query: listQuery, reply: identity.listMembers.reply },
    {
      method: 'post',
      path: '/admin/v1/orgs/:orgId/projects',
      summary: 'Create a project',
      auth: 'admin',
      body: createProjectBody,
      status: 201,
      reply: identity.createProject.reply,
      errors: [409],
    },
    { method: 'get', path: '/admin/v1/orgs/:orgId/projects', summary: "List an organization's projects", auth: 'admin', query: listQuery, reply: identity.listProjects.reply },
    {
      method: 'post',
      path: '/admin/v1/projects/:projectId/keys',
      summary: 'Make a project key for a member (shown once)',
      auth: 'admin',
      body: createKeyBody,
      status: 201,
      reply: identity.createKey.reply,
    },
    { method: 'get', path: '/admin/v1/projects/:projectId/keys', summary: "List a project's keys", auth: 'admin', query: listQuery, reply: identity.listKeys.reply },
    { method: 'delete', path: '/admin/v1/keys/:keyId', summary: 'Revoke a key', auth: 'admin', reply: identity.revokeKey.reply },
    { method: 'post', path: '/admin/v1/keys/:keyId/reset-device', summary: 'Unbind a key from its device', auth: 'admin', reply: identity.resetDevice.reply },
  ],
};
