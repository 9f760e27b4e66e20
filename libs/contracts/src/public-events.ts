import { z } from 'zod';
import { uuid, userRefSchema } from './common.ts';
import { commitKindSchema, committedEntrySchema } from './commit.ts';
import { lockedFileSchema, lockReleaseReasonSchema } from './lock.ts';
import { retentionTriggerSchema } from './retention.ts';

/**
 * The public event catalogue (docs/api.md, Events): what webhooks receive and the live feed streams.
 * Each is derived from one internal event of the service that owns the fact, by the webhooks service.
 */
export const PUBLIC_EVENT_TYPES = [
  'commit.created',
  'lock.acquired',
  'lock.released',
  'branch.created',
  'branch.deleted',
  'plugin.published',
  'file.obliterated',
  'retention.applied',
  'quota.warning',
] as const;
export const publicEventTypeSchema = z.enum(PUBLIC_EVENT_TYPES);
export type PublicEventType = z.infer<typeof publicEventTypeSchema>;

/** What a webhook ping carries: not part of the catalogue, never on the feed. */
export const PING_EVENT_TYPE = 'webhook.ping';

/** Entries a commit.created event lists; the rest are paged through `filesUrl`. */
export const COMMIT_EVENT_ENTRIES = 100;

export const commitCreatedData = z.object({
  commitId: uuid,
  branch: z.string(),
  sequenceNum: z.number().int().min(1),
  /** How the commit was made: a commit, a restore, a merge, a finalized draft. */
  kind: commitKindSchema,
  message: z.string(),
  author: userRefSchema,
  createdAt: z.string(),
  fileCount: z.number().int().min(0),
  /** The first COMMIT_EVENT_ENTRIES entries in commit order; `entriesTruncated` when there are more. */
  entries: z.array(committedEntrySchema),
  entriesTruncated: z.boolean(),
  /** GET this (with the project key) to page through every entry: the commit files route. */
  filesUrl: z.string(),
});

export const lockAcquiredData = z.object({ locks: z.array(lockedFileSchema) });
export const lockReleasedData = z.object({
  reason: lockReleaseReasonSchema,
  /** Who released them: the holder, an owner or admin forcing it, or the committer. */
  releasedBy: z.object({ userId: uuid, userName: z.string().nullable() }),
  locks: z.array(lockedFileSchema),
});
export const branchCreatedData = z.object({ name: z.string(), forkedFrom: z.string().nullable() });
export const branchDeletedData = z.object({ name: z.string() });

/** A file's versions were obliterated: the audit record of who removed what, and what it freed. */
export const fileObliteratedData = z.object({
  obliterationId: uuid,
  fileId: uuid,
  path: z.string(),
  versions: z.array(z.number().int().min(1)),
  versionCount: z.number().int().min(0),
  logicalBytes: z.number().int().min(0),
  freedBytes: z.number().int().min(0),
  by: userRefSchema,
  obliteratedAt: z.string(),
});

/**
 * Retention rules removed versions, by a confirmed run (`by` who confirmed it) or the periodic job
 * (`by: null`): the audit record of a run, its counts and what it frees. A run that removed nothing
 * has no event.
 */
export const retentionAppliedData = z.object({
  runId: uuid,
  trigger: retentionTriggerSchema,
  by: userRefSchema.nullable(),
  versionCount: z.number().int().min(1),
  fileCount: z.number().int().min(1),
  logicalBytes: z.number().int().min(0),
  freedObjects: z.number().int().min(0),
  freedBytes: z.number().int().min(0),
  /** Files with versions the rules would remove, left alone because someone holds a lock on them. */
  lockedFiles: z.number().int().min(0),
  appliedAt: z.string(),
});

/**
 * The project's stored bytes reached 80 % of its quota, or (`scope: "org"`) its org's projects'
 * together reached 80 % of the org's: once per crossing (it must fall below again first).
 */
export const quotaWarningData = z.object({
  scope: z.enum(['project', 'org']),
  /** For `scope: "org"`: the org whose quota it is; storedBytes are its projects' together. */
  orgId: uuid.optional(),
  storedBytes: z.number().int().min(0),
  quotaBytes: z.number().int().min(0),
  quotaSource: z.enum(['operator', 'project', 'org_operator', 'org']),
  percent: z.number(),
});

/** The envelope every public event travels in; `data` depends on `type`. */
export const publicEventSchema = z.object({
  id: uuid,
  type: z.string(),
  projectId: uuid,
  occurredAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type PublicEvent = z.infer<typeof publicEventSchema>;
