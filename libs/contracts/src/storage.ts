import { z } from 'zod';
import { defineContract, defineRoute } from './contract.ts';
import { byteSize, uuid } from './common.ts';
import { PROJECT_PATH } from './commit.ts';
import { MAX_PATH_LENGTH } from './paths.ts';

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
