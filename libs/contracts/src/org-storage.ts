import { z } from 'zod';
import { defineContract, defineRoute } from './contract.ts';
import { byteSize, roleSchema, uuid } from './common.ts';
import { PROJECT_PATH } from './commit.ts';
import { quotaBodySchema, usageDaySchema, usageFiguresSchema } from './storage.ts';

/**
 * An organization's storage (docs/storage.md, Organization usage and quotas): its projects' usage
 * added up, and a quota on their stored bytes together. Answered by the upload service, which asks
 * the identity service which projects the org holds.
 */

const STORAGE = 'Storage';
const ORG_USAGE_PATH = `${PROJECT_PATH}/org/usage`;
const ORG_QUOTA_PATH = `${PROJECT_PATH}/org/quota`;
const ADMIN_ORG_PATH = '/admin/v1/orgs/:orgId';

/**
 * Who asks: a key's (or a project-scoped session's) role in its org, a dashboard session's user (whose
 * role the identity service knows), or the operator through the admin API.
 */
export const orgCallerSchema = z.union([z.object({ role: roleSchema }), z.object({ viewerId: uuid }), z.object({ operator: z.literal(true) })]);
export type OrgCaller = z.infer<typeof orgCallerSchema>;

export const orgQuotaSourceSchema = z.enum(['org_operator', 'org']);
/** The org quota that applies (the lower of the operator's and the org's own), against its projects' stored bytes together. */
export const effectiveOrgQuotaSchema = z.object({ bytes: byteSize, source: orgQuotaSourceSchema });
export type EffectiveOrgQuota = z.infer<typeof effectiveOrgQuotaSchema>;

export const orgQuotaReplySchema = z.object({
  /** The quota that applies: the lower of the two below, null when neither is set. */
  quota: effectiveOrgQuotaSchema.nullable(),
  /** The operator's, set through the admin API. */
  operatorBytes: byteSize.nullable(),
  /** The org's own, set by its owners, never above the operator's. */
  orgBytes: byteSize.nullable(),
});
export type OrgQuotaReply = z.infer<typeof orgQuotaReplySchema>;

export const orgProjectUsageSchema = usageFiguresSchema.extend({
  projectId: uuid,
  name: z.string(),
  slug: z.string(),
  /** Set while the project is deleted: its storage counts until it is purged after `purgeAfter`, when it leaves the list. */
  deletedAt: z.string().nullable(),
  purgeAfter: z.string().nullable(),
});
export type OrgProjectUsage = z.infer<typeof orgProjectUsageSchema>;

export const orgUsageReplySchema = usageFiguresSchema.extend({
  orgId: uuid,
  ...orgQuotaReplySchema.shape,
  /** Every project of the org that still holds data (deleted ones until their purge) with its figures, the most stored bytes first. */
  projects: z.array(orgProjectUsageSchema),
  /** One point per day for the last 90 days, each the sum of the projects' points that day, oldest first; the last is today, as of now. */
  history: z.array(usageDaySchema),
});
export type OrgUsageReply = z.infer<typeof orgUsageReplySchema>;

export const orgUsage = defineContract('upload', 'org_usage', z.object({ orgId: uuid, caller: orgCallerSchema }), orgUsageReplySchema, {
  method: 'get',
  path: ORG_USAGE_PATH,
  tag: STORAGE,
  summary: "The key's organization's storage: its projects' usage added up, per project, 90 days of history and the org quota (owners and admins)",
  description: "Answered from the projects' running totals. The org is the key's (or the session's project's); members get 403.",
  auth: 'key',
  errors: [403],
  request: ({ actor }) => ({ orgId: actor.orgId, caller: { role: actor.role } }),
});

/** The dashboard's: the org named in the path, for its owners and admins (an org the person is not in is 404). */
export const sessionOrgUsage = defineRoute(orgUsage, {
  method: 'get',
  path: '/api/v1/orgs/:orgId/usage',
  tag: 'Dashboard',
  summary: "An organization's storage usage and quota (owners and admins)",
  auth: 'session',
  notFound: { orgId: 'Organization' },
  errors: [403],
  request: ({ viewerId, params }) => ({ orgId: params.orgId, caller: { viewerId } }),
});

export const adminOrgUsage = defineRoute(orgUsage, {
  method: 'get',
  path: `${ADMIN_ORG_PATH}/usage`,
  tag: 'Admin',
  summary: "An organization's storage usage and quota",
  auth: 'admin',
  notFound: { orgId: 'Organization' },
  request: ({ params }) => ({ orgId: params.orgId ?? '', caller: { operator: true as const } }),
});

export const setOrgQuota = defineContract(
  'upload',
  'set_org_quota',
  z.object({ orgId: uuid, caller: orgCallerSchema, bytes: byteSize.nullable() }),
  orgQuotaReplySchema,
  {
    method: 'put',
    path: ORG_QUOTA_PATH,
    tag: STORAGE,
    summary: "Set the key's organization's own storage quota (owners), at most the operator's",
    description:
      "Uploads that would take the org's projects' stored bytes together past the lower of the two org quotas answer 507 `quota_exceeded` at initiate, as a project quota does. `bytes: null` removes the org's own.",
    auth: 'key',
    write: true,
    body: quotaBodySchema,
    errors: [403],
    request: ({ actor, body }) => ({ orgId: actor.orgId, caller: { role: actor.role }, bytes: body.bytes }),
  },
);

export const sessionSetOrgQuota = defineRoute(setOrgQuota, {
  method: 'put',
  path: '/api/v1/orgs/:orgId/quota',
  tag: 'Dashboard',
  summary: "Set an organization's own storage quota (owners), at most the operator's",
  auth: 'session',
  notFound: { orgId: 'Organization' },
  body: quotaBodySchema,
  errors: [403],
  request: ({ viewerId, params, body }) => ({ orgId: params.orgId, caller: { viewerId }, bytes: body.bytes }),
});

export const adminSetOrgQuota = defineRoute(setOrgQuota, {
  method: 'put',
  path: `${ADMIN_ORG_PATH}/quota`,
  tag: 'Admin',
  summary: "Set an organization's storage quota (the most its owners may set)",
  auth: 'admin',
  notFound: { orgId: 'Organization' },
  body: quotaBodySchema,
  request: ({ params, body }) => ({ orgId: params.orgId ?? '', caller: { operator: true as const }, bytes: body.bytes }),
});
