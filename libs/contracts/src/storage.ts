import { z } from 'zod';
import { defineContract, defineRoute } from './contract.ts';
import { actorSchema, byteSize, positiveVersion, roleSchema, uuid, userRefSchema } from './common.ts';
import { MAX_COMMIT_ENTRIES, PROJECT_PATH, purgeSchema } from './commit.ts';
import { defineEvent, type EventOf } from './event.ts';
import { MAX_PATH_LENGTH } from './paths.ts';
import { uuidList } from './uuid-list.ts';

/**
 * A project's storage (docs/storage.md): what it holds and costs, answered by the upload service,
 * which owns versions and the content store.
 */

const STORAGE = 'Storage';
const ADMIN_PROJECT_PATH = '/admin/v1/projects/:projectId';

/** How far back a usage reply's history goes, in days (today included). */
export const USAGE_HISTORY_DAYS = 90;
/** At most this many extensions in a `by=extension` breakdown, the largest by logical bytes. */
export const MAX_USAGE_EXTENSIONS = 100;

const count = z.number().int().min(0);

/** What a project holds: every live version's bytes, and the distinct objects those need in storage. */
export const usageFiguresSchema = z.object({
  /** The sum of every live (not purged) version's size: what the history weighs. */
  logicalBytes: byteSize,
  /** The bytes of the distinct objects kept in storage (content deduplicated, Git LFS objects included). */
  storedBytes: byteSize,
  versions: count,
  objects: count,
});
export type UsageFigures = z.infer<typeof usageFiguresSchema>;

/** One day of the chart: the figures as they stood at that day's end (today: now), UTC days. */
export const usageDaySchema = usageFiguresSchema.extend({ day: z.string().meta({ description: 'UTC date, YYYY-MM-DD' }) });
export type UsageDay = z.infer<typeof usageDaySchema>;

export const quotaSourceSchema = z.enum(['operator', 'project']);
/** The quota that applies (the lower of the operator's and the project's own), against stored bytes. */
export const effectiveQuotaSchema = z.object({ bytes: byteSize, source: quotaSourceSchema });
export type EffectiveQuota = z.infer<typeof effectiveQuotaSchema>;

/** The live files under a folder (or one file) and what their versions weigh. */
export const prefixUsageSchema = z.object({
  prefix: z.string(),
  files: count,
  versions: count,
  logicalBytes: byteSize,
  /** Distinct objects the prefix's live versions use; one shared with paths elsewhere counts here too. */
  storedBytes: byteSize,
  objects: count,
});
export const extensionUsageSchema = z.object({
  /** Lower case, without the dot; "" for files with none. */
  extension: z.string(),
  files: count,
  versions: count,
  logicalBytes: byteSize,
  storedBytes: byteSize,
  objects: count,
});

export const usageReplySchema = usageFiguresSchema.extend({
  projectId: uuid,
  quota: effectiveQuotaSchema.nullable(),
  /** Objects no version refers to any more, waiting out the collector's grace before they are deleted (included in storedBytes). */
  collectable: z.object({ objects: count, bytes: byteSize }),
  /** One point per day for the last 90 days (from the project's first recorded day), oldest first; the last is today, as of now. */
  history: z.array(usageDaySchema),
  byPrefix: prefixUsageSchema.optional(),
  /** The largest extensions (at most 100) by logical bytes, within `prefix` when given. */
  byExtension: z.array(extensionUsageSchema).optional(),
});
export type UsageReply = z.infer<typeof usageReplySchema>;

/**
 * `prefix`: a folder (or file) path, without a trailing slash, compared ignoring letter case;
 * `by=extension`: a breakdown by file extension. Both read the project's versions on request.
 */
export const usageQuerySchema = z.object({
  prefix: z.string().min(1).max(MAX_PATH_LENGTH).optional(),
  by: z.enum(['extension']).optional(),
});

const usageRequest = z.object({
  projectId: uuid,
  /** Asked through the admin API: the project is checked to exist (a key's project always does). */
  operator: z.boolean().default(false),
  ...usageQuerySchema.shape,
});

export const usage = defineContract('upload', 'usage', usageRequest, usageReplySchema, {
  method: 'get',
  path: `${PROJECT_PATH}/usage`,
  tag: STORAGE,
  summary: "The project's storage: logical and stored bytes, versions, objects, quota and 90 days of history",
  description: 'Kept incrementally: answered from running totals, whatever the project size. `prefix` and `by=extension` add breakdowns read on request.',
  auth: 'key',
  query: usageQuerySchema,
  request: ({ actor, query }) => ({ projectId: actor.projectId, ...query }),
});

export const adminUsage = defineRoute(usage, {
  method: 'get',
  path: `${ADMIN_PROJECT_PATH}/usage`,
  tag: 'Admin',
  summary: "A project's storage usage",
  auth: 'admin',
  notFound: { projectId: 'Project' },
  query: usageQuerySchema,
  request: ({ params, query }) => ({ projectId: params.projectId ?? '', operator: true, ...query }),
});

// ---- Obliterate (docs/storage.md, Obliterate): owners and admins remove a file's versions for good --

/** How long a dry run's confirmToken stays good. */
export const OBLITERATE_TOKEN_TTL_MS = 15 * 60 * 1000;
/** At most this many versions are listed in a plan (newest first); `versionCount` counts them all. */
export const MAX_LISTED_VERSIONS = 1000;

/**
 * What to obliterate: every version of the file at `path` (or of `fileId`), or one version of it.
 * A dry run answers the plan and its token; the real run sends the token back.
 */
export const obliterateBodySchema = z
  .object({
    path: z.string().min(1).max(MAX_PATH_LENGTH).optional(),
    fileId: uuid.optional(),
    version: positiveVersion.optional(),
    dryRun: z.boolean().default(false),
    confirmToken: z.string().min(1).max(1024).optional(),
  })
  .refine((b) => (b.path === undefined) !== (b.fileId === undefined), { message: 'send either path or fileId', path: ['path'] })
  .refine((b) => b.version === undefined || b.fileId !== undefined, { message: 'a version is named with its fileId', path: ['version'] })
  .refine((b) => b.dryRun || b.confirmToken !== undefined, {
    message: 'is required: run with dryRun: true first and send back its confirmToken',
    path: ['confirmToken'],
  });
export type ObliterateBody = z.output<typeof obliterateBodySchema>;

export const plannedVersionSchema = z.object({ version: positiveVersion, size: byteSize, sha256: z.string(), createdAt: z.string() });

export const obliterateReplySchema = z.object({
  dryRun: z.boolean(),
  /** The obliteration's id (its `file.obliterated` event's); the same for a dry run and the run it confirms. */
  obliterationId: uuid,
  fileId: uuid,
  path: z.string(),
  /** The live versions it removes (or removed), newest first, at most 1,000. */
  versions: z.array(plannedVersionSchema),
  versionCount: count,
  versionsTruncated: z.boolean(),
  /** The removed versions' sizes added up. */
  logicalBytes: byteSize,
  /** Objects no other live version (nor a Git LFS object) of the project shares: the collector deletes them after its grace. */
  freedObjects: count,
  freedBytes: byteSize,
  /** Objects other live versions (or Git LFS) still use: they stay. */
  keptObjects: count,
  /** A dry run's token for the real run (valid until `expiresAt`); null once done. */
  confirmToken: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** When the versions were purged; null for a dry run. */
  obliteratedAt: z.string().nullable(),
});
export type ObliterateReply = z.infer<typeof obliterateReplySchema>;

export const obliterate = defineContract('upload', 'obliterate', obliterateBodySchema.safeExtend({ actor: actorSchema }), obliterateReplySchema, {
  method: 'post',
  path: `${PROJECT_PATH}/obliterate`,
  tag: STORAGE,
  summary: "Remove a file's versions for good (owners and admins): a dry run, then the run it confirms",
  description:
    'The versions stay in history as removed, their downloads answer 410 `version_purged`, and their objects are deleted by the collector once nothing else uses them.',
  auth: 'key',
  write: true,
  body: obliterateBodySchema,
  errors: [403, 409],
  request: ({ actor, body }) => ({ actor, ...body }),
});

export { purgeSchema, type Purge } from './commit.ts';

/**
 * Which of these versions are purged, for the commit service's downloads and history: entry i
 * describes the i-th (file, version), null when it is not purged (or not a version of the project).
 */
export const purgedVersions = defineContract(
  'upload',
  'purged_versions',
  z
    .object({ projectId: uuid, fileIds: uuidList(MAX_COMMIT_ENTRIES), versions: z.array(positiveVersion) })
    .refine((r) => r.versions.length === r.fileIds.length, { message: 'must have one entry per file id', path: ['versions'] }),
  z.object({ purges: z.array(purgeSchema.nullable()) }),
);

/** A file's versions were obliterated. Goes out through the upload service's outbox, with the purge. */
export const fileObliterated = defineEvent(
  'file.obliterated',
  z.object({
    projectId: uuid,
    obliterationId: uuid,
    fileId: uuid,
    path: z.string(),
    /** The version numbers removed, newest first, at most 1,000 (`versionCount` counts them all). */
    versions: z.array(positiveVersion),
    versionCount: count,
    logicalBytes: byteSize,
    freedBytes: byteSize,
    by: userRefSchema,
    obliteratedAt: z.string(),
  }),
);
export type FileObliterated = EventOf<typeof fileObliterated>;

// ---- Quotas (docs/storage.md, Quotas): a limit on a project's stored bytes --------------------------

/** Share of the quota past which the project gets one `quota.warning` event (until it falls below again). */
export const QUOTA_WARNING_SHARE = 0.8;

/** A quota to set, in bytes of storage; null removes it. */
export const quotaBodySchema = z.object({ bytes: byteSize.nullable() });

export const quotaReplySchema = z.object({
  /** The quota that applies: the lower of the two below, null when neither is set. */
  quota: effectiveQuotaSchema.nullable(),
  /** The operator's, set through the admin API. */
  operatorBytes: byteSize.nullable(),
  /** The project's own, set by its org's owners and admins, never above the operator's. */
  projectBytes: byteSize.nullable(),
});
export type QuotaReply = z.infer<typeof quotaReplySchema>;

/** Who sets a quota: a key's role (only owners and admins may), or the operator through the admin API. */
export const quotaSetterSchema = z.union([roleSchema, z.literal('operator')]);

export const setQuota = defineContract(
  'upload',
  'set_quota',
  z.object({ projectId: uuid, setter: quotaSetterSchema, bytes: byteSize.nullable() }),
  quotaReplySchema,
  {
    method: 'put',
    path: `${PROJECT_PATH}/quota`,
    tag: STORAGE,
    summary: "Set the project's own storage quota (owners and admins), at most the operator's",
    description: "Uploads that would pass the lower of the two quotas answer 507 `quota_exceeded` at initiate. `bytes: null` removes the project's own.",
    auth: 'key',
    write: true,
    body: quotaBodySchema,
    errors: [403],
    request: ({ actor, body }) => ({ projectId: actor.projectId, setter: actor.role, bytes: body.bytes }),
  },
);

export const adminSetQuota = defineRoute(setQuota, {
  method: 'put',
  path: `${ADMIN_PROJECT_PATH}/quota`,
  tag: 'Admin',
  summary: "Set a project's storage quota (the most its owners may set)",
  auth: 'admin',
  notFound: { projectId: 'Project' },
  body: quotaBodySchema,
  request: ({ params, body }) => ({ projectId: params.projectId ?? '', setter: 'operator' as const, bytes: body.bytes }),
});

/**
 * The project's stored bytes reached 80 % of its quota (`scope: "project"`), or its org's projects'
 * together reached 80 % of the org's (`scope: "org"`, one event for each project of the org, so each
 * project's feed and webhooks hear of it). Goes out through the upload service's outbox.
 */
export const quotaWarning = defineEvent(
  'quota.warning',
  z.object({
    projectId: uuid,
    scope: z.enum(['project', 'org']).default('project'),
    /** The org whose quota it is, for `scope: "org"`. */
    orgId: uuid.optional(),
    storedBytes: byteSize,
    quotaBytes: byteSize,
    quotaSource: z.enum([...quotaSourceSchema.options, 'org_operator', 'org']),
    /** storedBytes as a percentage of quotaBytes, one decimal. */
    percent: z.number(),
    at: z.string(),
  }),
);
export type QuotaWarning = EventOf<typeof quotaWarning>;
