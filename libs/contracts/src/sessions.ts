import { z } from 'zod';
import { defineContract, defineRoute } from './contract.ts';
import { isoTimestamp, roleSchema, uuid, userRefSchema } from './common.ts';
import {
  apiKeyHash,
  apiKeySchema,
  displayName,
  email,
  keyIdentitySchema,
  listQuery,
  MAX_ADMIN_PAGE_SIZE,
  orgSchema,
  projectSchema,
  slug,
  writeRateLimitReply,
  writeRateLimitSchema,
} from './identity.ts';

// ---- People's sessions: sign-in links, OpenID Connect, the session cookie ------------

/** What sign-in links and session cookies carry: 43 base64url characters (256 random bits). */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const token = z.string().regex(TOKEN_PATTERN, 'is not a sign-in token');
const tokenHashField = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hexadecimal characters');

/** Session and link tokens are found by their hex SHA-256, as keys are. */
export const tokenHash = (value: string): string => apiKeyHash(value);

export const sessionUserSchema = z.object({ id: uuid, name: z.string(), avatarUrl: z.string().nullable(), email: z.string().nullable() });
export type SessionUser = z.infer<typeof sessionUserSchema>;

/**
 * A new session: the token goes into the cookie and the CSRF token to the browser, each only in this
 * reply; the service keeps their hashes.
 */
export const newSessionSchema = z.object({ token: z.string(), csrfToken: z.string(), user: sessionUserSchema });
export type NewSession = z.infer<typeof newSessionSchema>;

/** A link valid 15 minutes, usable once; the token appears only in this reply. */
export const createSignInLink = defineContract(
  'identity',
  'create_sign_in_link',
  z.object({ userId: uuid }),
  z.object({ token: z.string(), expiresAt: isoTimestamp }),
);

/** Spends a sign-in link on a new session; an unknown, used or expired link is 401 unauthorized. */
export const redeemSignInLink = defineContract('identity', 'redeem_sign_in_link', z.object({ token }), newSessionSchema);

/**
 * An OpenID Connect sign-in: the user linked to (issuer, subject), else the admin-made user whose
 * email the provider verified (then linked); anyone else is 403 forbidden.
 */
export const signInWithOidc = defineContract(
  'identity',
  'sign_in_with_oidc',
  z.object({ issuer: z.string().min(1), subject: z.string().min(1), email: z.string().nullable(), emailVerified: z.boolean() }),
  newSessionSchema,
);

/**
 * The live session with this token hash (null when unknown, ended, idle too long or past its
 * lifetime; a hit counts as activity), with the hash of its CSRF token for the gateway to check a
 * write's against, and, when a project is named, the caller's identity in it shaped as a key's, with
 * the session's id as keyId and no device (null when the user is not a member of the project's org).
 */
export const resolveSession = defineContract(
  'identity',
  'resolve_session',
  z.object({ tokenHash: tokenHashField, projectId: uuid.nullable() }),
  z.object({
    session: z.object({ id: uuid, csrfTokenHash: tokenHashField, user: sessionUserSchema }).nullable(),
    project: keyIdentitySchema.nullable(),
  }),
);

/** Sign-out: the session ends at once, everywhere. Ending an ended or unknown session is a no-op. */
export const endSession = defineContract('identity', 'end_session', z.object({ tokenHash: tokenHashField }), z.object({ ended: z.boolean() }));

// ---- The dashboard's reads and settings, scoped to the signed-in user --------------------------
// `viewerId` is the session's user as the gateway resolved it; the identity service applies every rule.

const viewer = { viewerId: uuid };
const pageQuery = { cursor: z.string().optional(), limit: z.number().int().min(1).max(MAX_ADMIN_PAGE_SIZE) };
const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/**
 * The dashboard's routes, for a signed-in person only; writes send the session's CSRF token. A
 * malformed id names nothing, as an unknown one (404).
 */
export const dashboardRoute = {
  tag: 'Dashboard',
  auth: 'session',
  notFound: { orgId: 'Organization', userId: 'Member', invitationId: 'Invitation', projectId: 'Project', keyId: 'API key' },
} as const;
const ORG_PATH = '/api/v1/orgs/:orgId';
const MY_INVITATION_PATH = '/api/v1/me/invitations/:invitationId';
const PROJECT_KEYS_PATH = '/api/v1/projects/:projectId/keys';

export const createProjectBody = z.object({ name: displayName, slug });
export const memberBody = z.union([z.object({ userId: uuid, role: roleSchema }), z.object({ email, role: roleSchema })]);
export const invitationBody = z.object({ email, role: roleSchema });
export const createKeyBody = z.object({ userId: uuid.nullable().optional() });
export const writeLimitBody = z.object({ writeRateLimit: writeRateLimitSchema.nullable() });

export const myOrgSchema = orgSchema.extend({ role: roleSchema });
export const myOrgs = defineContract('identity', 'my_orgs', z.object(viewer), z.object({ data: z.array(myOrgSchema) }), {
  ...dashboardRoute,
  method: 'get',
  path: '/api/v1/me/orgs',
  summary: 'My organizations, with my role',
});

export const orgProjects = defineContract('identity', 'org_projects', z.object({ ...viewer, orgId: uuid, ...pageQuery }), pageOf(projectSchema), {
  ...dashboardRoute,
  method: 'get',
  path: `${ORG_PATH}/projects`,
  summary: "An organization's projects",
  query: listQuery,
});

/** Owners and admins create projects. */
export const createOrgProject = defineContract('identity', 'create_org_project', z.object({ ...viewer, orgId: uuid, name: displayName, slug }), projectSchema, {
  ...dashboardRoute,
  method: 'post',
  path: `${ORG_PATH}/projects`,
  summary: 'Create a project',
  body: createProjectBody,
  status: 201,
  errors: [409],
});

/**
 * The project as its org's members see it, with the viewer's role and `maxWriteRateLimit`: the
 * operator's limit, the most its owners and admins may set (this service refuses more).
 */
export const projectOverview = defineContract(
  'identity',
  'project_overview',
  z.object({ ...viewer, projectId: uuid }),
  z.object({ project: projectSchema, org: orgSchema, role: roleSchema, maxWriteRateLimit: writeRateLimitReply }),
);

/**
 * GET /api/v1/projects/{projectId}/overview: the overview, and `defaultWriteRateLimit`, the limit the
 * gateway applies to a project with none of its own (`project.writeRateLimit` null). The gateway
 * adds it from its own settings: it is the one applying it, so the dashboard shows what is in force.
 */
export const projectOverviewPage = projectOverview.reply.extend({ defaultWriteRateLimit: writeRateLimitReply });

/** Owners and admins set a project's write budget; null brings back the gateway's default. */
export const setProjectWriteLimit = defineContract(
  'identity',
  'set_project_write_limit',
  z.object({ ...viewer, projectId: uuid, writeRateLimit: writeRateLimitSchema.nullable() }),
  projectSchema,
  { ...dashboardRoute, method: 'put', path: '/api/v1/projects/:projectId/write-rate-limit', summary: "Set a project's write rate limit", body: writeLimitBody },
);

export const orgMemberSchema = z.object({ userId: uuid, name: z.string(), email: z.string().nullable(), role: roleSchema, createdAt: isoTimestamp });
export const orgMembers = defineContract('identity', 'org_members', z.object({ ...viewer, orgId: uuid, ...pageQuery }), pageOf(orgMemberSchema), {
  ...dashboardRoute,
  method: 'get',
  path: `${ORG_PATH}/members`,
  summary: "An organization's members",
  query: listQuery,
});

/**
 * Owners and admins change a member's role, the member named by id or by email; only an owner makes
 * or unmakes an owner, and an org always keeps one owner. Anyone not a member of this org, a user
 * or not, is 409 invitation_required, always alike: nobody is added but by accepting an invitation.
 */
export const setMemberRole = defineContract(
  'identity',
  'set_member_role',
  z.object({ ...viewer, orgId: uuid, member: z.union([z.object({ userId: uuid }), z.object({ email: z.email() })]), role: roleSchema }),
  orgMemberSchema,
  {
    ...dashboardRoute,
    method: 'post',
    path: `${ORG_PATH}/members`,
    summary: "Change a member's role",
    description:
      'The member is named by `userId` or `email`. Someone who is not a member of this organization is 409 `invitation_required`: they join by accepting an invitation.',
    body: memberBody,
    errors: [409],
    request: ({ viewerId, params, body: { role, ...member } }) => ({ viewerId, orgId: params.orgId, member, role }),
  },
);
export const removeMember = defineContract(
  'identity',
  'remove_member',
  z.object({ ...viewer, orgId: uuid, userId: uuid }),
  z.object({ removed: z.boolean() }),
  {
    ...dashboardRoute,
    method: 'delete',
    path: `${ORG_PATH}/members/:userId`,
    summary: 'Remove a member',
    errors: [409],
  },
);

// ---- Invitations: how a user joins an organization from the dashboard ---------------------------

/** `expired`: still pending, past `expiresAt`; the others are final. */
export const invitationStateSchema = z.enum(['pending', 'expired', 'accepted', 'declined', 'revoked']);
export type InvitationState = z.infer<typeof invitationStateSchema>;

/** An invitation as its org's owners and admins see it. */
export const orgInvitationSchema = z.object({
  id: uuid,
  email: z.string(),
  role: roleSchema,
  invitedBy: userRefSchema,
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
  state: invitationStateSchema,
});

/**
 * Owners and admins invite an email address (only an owner invites an owner). The answer is the same
 * whether or not the address is a user's; an open invitation to it is replaced; the address of a
 * member of this org is 409 conflict.
 */
export const inviteMember = defineContract('identity', 'invite_member', z.object({ ...viewer, orgId: uuid, email, role: roleSchema }), orgInvitationSchema, {
  ...dashboardRoute,
  method: 'post',
  path: `${ORG_PATH}/invitations`,
  summary: 'Invite an email address to the organization',
  description: "The answer is the same whether or not the address is a user's. Valid 7 days; replaces an open invitation to the same address.",
  body: invitationBody,
  status: 201,
  errors: [409],
});

/** The org's open invitations, pending or expired, oldest first: owners and admins only. */
export const orgInvitations = defineContract('identity', 'org_invitations', z.object({ ...viewer, orgId: uuid, ...pageQuery }), pageOf(orgInvitationSchema), {
  ...dashboardRoute,
  method: 'get',
  path: `${ORG_PATH}/invitations`,
  summary: "An organization's open invitations",
  query: listQuery,
});

/** Owners and admins revoke an open invitation; `revoked: false` when it was already closed. */
export const revokeInvitation = defineContract(
  'identity',
  'revoke_invitation',
  z.object({ ...viewer, orgId: uuid, invitationId: uuid }),
  z.object({ revoked: z.boolean() }),
  { ...dashboardRoute, method: 'delete', path: `${ORG_PATH}/invitations/:invitationId`, summary: 'Revoke an invitation' },
);

/** An invitation as the person invited sees it. */
export const myInvitationSchema = z.object({
  id: uuid,
  org: orgSchema,
  role: roleSchema,
  invitedBy: userRefSchema,
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
});

/** The pending invitations to the viewer's email address (none when they have no address). */
export const myInvitations = defineContract('identity', 'my_invitations', z.object(viewer), z.object({ data: z.array(myInvitationSchema) }), {
  ...dashboardRoute,
  method: 'get',
  path: '/api/v1/me/invitations',
  summary: 'My pending invitations',
});

/**
 * Accepting makes the viewer a member with the invitation's role (one already a member keeps theirs)
 * and answers the org as my_orgs lists it. Only a pending invitation to the viewer's address is
 * accepted or declined, once: one to another address is 404, a closed or expired one 409 conflict
 * with its `state`.
 */
export const acceptInvitation = defineContract('identity', 'accept_invitation', z.object({ ...viewer, invitationId: uuid }), myOrgSchema, {
  ...dashboardRoute,
  method: 'post',
  path: `${MY_INVITATION_PATH}/accept`,
  summary: 'Accept an invitation: join its organization',
  errors: [409],
});
export const declineInvitation = defineContract(
  'identity',
  'decline_invitation',
  z.object({ ...viewer, invitationId: uuid }),
  z.object({ declined: z.boolean() }),
  {
    ...dashboardRoute,
    method: 'post',
    path: `${MY_INVITATION_PATH}/decline`,
    summary: 'Decline an invitation',
    errors: [409],
  },
);

/** A key in the dashboard: its owner's name and when it last authenticated. */
export const dashboardKeySchema = apiKeySchema.extend({ userName: z.string(), lastUsedAt: isoTimestamp.nullable() });

/** Members see their own keys; owners and admins see everyone's. */
export const projectKeys = defineContract('identity', 'project_keys', z.object({ ...viewer, projectId: uuid, ...pageQuery }), pageOf(dashboardKeySchema), {
  ...dashboardRoute,
  method: 'get',
  path: PROJECT_KEYS_PATH,
  summary: "A project's keys I may see",
  query: listQuery,
});

/** A key for the viewer, or for another member when an owner or admin asks; the key appears only here. */
export const createProjectKey = defineContract(
  'identity',
  'create_project_key',
  z.object({ ...viewer, projectId: uuid, userId: uuid.nullable() }),
  dashboardKeySchema.extend({ key: z.string() }),
  {
    ...dashboardRoute,
    method: 'post',
    path: PROJECT_KEYS_PATH,
    summary: 'Make a key (shown once)',
    body: createKeyBody,
    status: 201,
    noStore: true,
    request: ({ viewerId, params, body }) => ({ viewerId, projectId: params.projectId, userId: body.userId ?? null }),
  },
);

/** Revoke or unbind one key: its owner, or an owner or admin of its project's org. */
export const changeProjectKey = defineContract(
  'identity',
  'change_project_key',
  z.object({ ...viewer, projectId: uuid, keyId: uuid, change: z.enum(['revoke', 'reset_device']) }),
  dashboardKeySchema,
  {
    ...dashboardRoute,
    method: 'delete',
    path: `${PROJECT_KEYS_PATH}/:keyId`,
    summary: 'Revoke a key',
    forgetsKey: true,
    request: ({ viewerId, params }) => ({ viewerId, projectId: params.projectId, keyId: params.keyId, change: 'revoke' as const }),
  },
);

export const resetProjectKeyDevice = defineRoute(changeProjectKey, {
  ...dashboardRoute,
  method: 'post',
  path: `${PROJECT_KEYS_PATH}/:keyId/reset-device`,
  summary: 'Unbind a key from its device',
  forgetsKey: true,
  request: ({ viewerId, params }) => ({ viewerId, projectId: params.projectId, keyId: params.keyId, change: 'reset_device' as const }),
});
