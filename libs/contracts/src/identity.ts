import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineContract } from './contract.ts';
import { isoTimestamp, roleSchema, uuid } from './common.ts';

// ---- API keys on the request path ---------------------------------------------------------------

/**
 * How a key is looked up: the hex SHA-256 of the whole key, computed by the gateway from the bearer
 * token and by the identity service when it stores a new key. The key itself never crosses the bus.
 */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What X-Device-Id may hold: 1 to 200 printable ASCII characters. */
export const DEVICE_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;
const deviceId = z.string().regex(DEVICE_ID_PATTERN, 'must be 1 to 200 printable ASCII characters');

/** Everything a request needs to know about its key, flat (the caller's identity and more). */
export const keyIdentitySchema = z.object({
  keyId: uuid,
  /** The device the key is bound to; null until a request names one. */
  deviceId: z.string().nullable(),
  revoked: z.boolean(),
  /** The user's role in the project's organization; null once they are no longer a member. */
  role: roleSchema.nullable(),
  userId: uuid,
  userName: z.string(),
  userAvatarUrl: z.string().nullable(),
  projectId: uuid,
  projectName: z.string(),
  projectSlug: z.string(),
  projectIconUrl: z.string().nullable(),
  /** The project's own write budget; null where the gateway's default applies. */
  writeRatePerSecond: z.number().nullable(),
  writeRateBurst: z.number().int().nullable(),
  orgId: uuid,
  orgName: z.string(),
  orgSlug: z.string(),
  /** Set while the project is deleted (its keys are refused): when it will be purged. */
  projectPurgeAfter: isoTimestamp.nullable(),
  /** Set once the project is purged (its keys are gone; its members' sessions are refused with it). */
  projectPurgedAt: isoTimestamp.nullable(),
});
export type KeyIdentity = z.infer<typeof keyIdentitySchema>;

/** The key with this hash, revoked or not; null for a key that does not exist. */
export const resolveKey = defineContract(
  'identity',
  'resolve_key',
  z.object({ keyHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hexadecimal characters') }),
  z.object({ identity: keyIdentitySchema.nullable() }),
);

/**
 * Binds an unbound key to a device; the first device wins. Answers the device the key is bound to
 * afterwards (this one, or the one that won a race), or null when the key no longer exists.
 */
export const bindDevice = defineContract('identity', 'bind_device', z.object({ keyId: uuid, deviceId }), z.object({ deviceId: z.string().nullable() }));

// ---- The admin API's operations (docs/api.md, Admin) ---------------------------------------------

export const slug = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'lowercase letters, digits and inner hyphens, at most 64 characters');
export const displayName = z.string().trim().min(1).max(200);
// http(s) only: these URLs end up in tools' UIs, where a javascript: URL would be stored XSS.
export const imageUrl = z.url({ protocol: /^https?$/ }).max(2048);
/**
 * A project's write budget as the admin API takes it. Owners and admins setting it from the
 * dashboard are held to the operator's limit as well (the identity service's dashboard rules).
 */
export const writeRateLimitSchema = z.object({ perSecond: z.number().positive().max(100_000), burst: z.number().int().min(1).max(1_000_000) });
export type WriteRateLimit = z.infer<typeof writeRateLimitSchema>;
/** A write limit as replies carry it: whatever an operator configured, not bounded as requests are. */
export const writeRateLimitReply = z.object({ perSecond: z.number(), burst: z.number() });
export const MAX_ADMIN_PAGE_SIZE = 200;
const pageQuery = { cursor: z.string().optional(), limit: z.number().int().min(1).max(MAX_ADMIN_PAGE_SIZE) };
const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** The admin API's list query as HTTP carries it: `limit` 1 to 200 (default 50) and the previous page's `nextCursor`. */
export const listQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ADMIN_PAGE_SIZE).default(50),
});

/** The operators' API: a malformed id names nothing, as an unknown one (404). */
export const adminRoute = {
  tag: 'Admin',
  auth: 'admin',
  notFound: { orgId: 'Organization', userId: 'User', projectId: 'Project', keyId: 'API key' },
} as const;
const ORGS_PATH = '/admin/v1/orgs';
const USERS_PATH = '/admin/v1/users';
const ORG_PATH = `${ORGS_PATH}/:orgId`;
const KEYS_PATH = '/admin/v1/projects/:projectId/keys';
const KEY_PATH = '/admin/v1/keys/:keyId';

export const orgSchema = z.object({ id: uuid, name: z.string(), slug: z.string(), createdAt: isoTimestamp });
/** `email`: how an OpenID Connect sign-in finds a user an admin made. */
export const userSchema = z.object({ id: uuid, name: z.string(), avatarUrl: z.string().nullable(), email: z.string().nullable(), createdAt: isoTimestamp });
export const memberSchema = z.object({ orgId: uuid, userId: uuid, role: roleSchema, createdAt: isoTimestamp });
export const projectSchema = z.object({
  id: uuid,
  orgId: uuid,
  name: z.string(),
  slug: z.string(),
  iconUrl: z.string().nullable(),
  writeRateLimit: writeRateLimitReply.nullable(),
  createdAt: isoTimestamp,
  /** Set while the project is deleted: it is purged after `purgeAfter` (then `purgedAt`) unless brought back. */
  deletedAt: isoTimestamp.nullable(),
  purgeAfter: isoTimestamp.nullable(),
  purgedAt: isoTimestamp.nullable(),
});
/** A key as operators see it: never the key itself, except once in createKey's reply. */
export const apiKeySchema = z.object({
  id: uuid,
  projectId: uuid,
  userId: uuid,
  hint: z.string(),
  deviceBound: z.boolean(),
  /** The X-Device-Id the key is bound to, and when it was bound; null while unbound. */
  deviceId: z.string().nullable(),
  deviceBoundAt: isoTimestamp.nullable(),
  createdAt: isoTimestamp,
  revokedAt: isoTimestamp.nullable(),
});

export const createOrgBody = z.object({ name: displayName, slug });
export const createOrg = defineContract('identity', 'create_org', createOrgBody, orgSchema, {
  ...adminRoute,
  method: 'post',
  path: ORGS_PATH,
  summary: 'Create an organization',
  body: createOrgBody,
  status: 201,
  errors: [409],
});
export const listOrgs = defineContract('identity', 'list_orgs', z.object(pageQuery), pageOf(orgSchema), {
  ...adminRoute,
  method: 'get',
  path: ORGS_PATH,
  summary: 'List organizations',
  query: listQuery,
});

export const email = z.email().max(320);
export const createUser = defineContract(
  'identity',
  'create_user',
  z.object({ name: displayName, avatarUrl: imageUrl.nullable(), email: email.nullable().default(null) }),
  userSchema,
  {
    ...adminRoute,
    method: 'post',
    path: USERS_PATH,
    summary: 'Create a user',
    body: z.object({ name: displayName, avatarUrl: imageUrl.nullable().optional(), email: email.nullable().optional() }),
    status: 201,
    errors: [409],
    request: ({ body }) => ({ name: body.name, avatarUrl: body.avatarUrl ?? null, email: body.email ?? null }),
  },
);
export const listUsers = defineContract('identity', 'list_users', z.object(pageQuery), pageOf(userSchema), {
  ...adminRoute,
  method: 'get',
  path: USERS_PATH,
  summary: 'List users',
  query: listQuery,
});
/**
 * Sets or clears (null) a user's email, which an OpenID Connect sign-in links by: unique ignoring
 * case (409 conflict); an unknown user is 404.
 */
export const setUserEmail = defineContract('identity', 'set_user_email', z.object({ userId: uuid, email: email.nullable() }), userSchema, {
  ...adminRoute,
  method: 'patch',
  path: `${USERS_PATH}/:userId`,
  summary: "Set or clear a user's email (how OpenID Connect sign-in finds them)",
  body: z.object({ email: email.nullable() }),
  errors: [409],
});

/** Adding a member twice changes their role: the last call states the intended role. */
export const addMember = defineContract('identity', 'add_member', z.object({ orgId: uuid, userId: uuid, role: roleSchema }), memberSchema, {
  ...adminRoute,
  method: 'post',
  path: `${ORG_PATH}/members`,
  summary: 'Add a member (or change their role)',
  body: z.object({ userId: uuid, role: roleSchema }),
  status: 201,
});
export const listMembers = defineContract('identity', 'list_members', z.object({ orgId: uuid, ...pageQuery }), pageOf(memberSchema), {
  ...adminRoute,
  method: 'get',
  path: `${ORG_PATH}/members`,
  summary: "List an organization's members",
  query: listQuery,
});

export const createProject = defineContract(
  'identity',
  'create_project',
  z.object({ orgId: uuid, name: displayName, slug, iconUrl: imageUrl.nullable(), writeRateLimit: writeRateLimitSchema.nullable() }),
  projectSchema,
  {
    ...adminRoute,
    method: 'post',
    path: `${ORG_PATH}/projects`,
    summary: 'Create a project',
    body: z.object({ name: displayName, slug, iconUrl: imageUrl.nullable().optional(), writeRateLimit: writeRateLimitSchema.optional() }),
    status: 201,
    errors: [409],
    request: ({ params, body }) => ({
      orgId: params.orgId,
      name: body.name,
      slug: body.slug,
      iconUrl: body.iconUrl ?? null,
      writeRateLimit: body.writeRateLimit ?? null,
    }),
  },
);
export const listProjects = defineContract('identity', 'list_projects', z.object({ orgId: uuid, ...pageQuery }), pageOf(projectSchema), {
  ...adminRoute,
  method: 'get',
  path: `${ORG_PATH}/projects`,
  summary: "List an organization's projects",
  query: listQuery,
});

/**
 * An org's projects that still hold data: live ones, and deleted ones inside their undo window
 * (`deletedAt` set), whose storage exists until they are purged; purged ones never. For the services
 * that count an org's storage; an unknown org is 404. Internal: no route.
 */
export const listStoredProjects = defineContract('identity', 'list_stored_projects', z.object({ orgId: uuid, ...pageQuery }), pageOf(projectSchema));

/** The key itself is in this reply and never again: only its hash is stored. */
export const createKey = defineContract('identity', 'create_key', z.object({ projectId: uuid, userId: uuid }), apiKeySchema.extend({ key: z.string() }), {
  ...adminRoute,
  method: 'post',
  path: KEYS_PATH,
  summary: 'Make a project key for a member (shown once)',
  body: z.object({ userId: uuid }),
  status: 201,
  noStore: true,
});
export const listKeys = defineContract('identity', 'list_keys', z.object({ projectId: uuid, ...pageQuery }), pageOf(apiKeySchema), {
  ...adminRoute,
  method: 'get',
  path: KEYS_PATH,
  summary: "List a project's keys",
  query: listQuery,
});
/** Revoking twice keeps the first revocation time. */
export const revokeKey = defineContract('identity', 'revoke_key', z.object({ keyId: uuid }), apiKeySchema, {
  ...adminRoute,
  method: 'delete',
  path: KEY_PATH,
  summary: 'Revoke a key',
  forgetsKey: true,
});
export const resetDevice = defineContract('identity', 'reset_device', z.object({ keyId: uuid }), apiKeySchema, {
  ...adminRoute,
  method: 'post',
  path: `${KEY_PATH}/reset-device`,
  summary: 'Unbind a key from its device',
  forgetsKey: true,
});
