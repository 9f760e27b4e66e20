import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, byteSize, positiveVersion, uuid, userRefSchema } from './common.ts';
import { PROJECT_PATH } from './commit.ts';
import { defineEvent, type EventOf } from './event.ts';
import { hasControlCharacter, MAX_PATH_LENGTH } from './paths.ts';

/**
 * Retention rules (docs/storage.md, Retention): per project, which old versions of which paths the
 * upload service removes on its own, as an obliteration would. Answered by the upload service.
 */

const STORAGE = 'Storage';
const RETENTION_PATH = `${PROJECT_PATH}/retention`;

/** Rules a project may have: each is checked against every path of every batch. */
export const MAX_RETENTION_RULES = 50;
export const MAX_KEEP_LAST = 1_000_000;
export const MAX_KEEP_DAYS = 36_500;
/** How long a dry run's confirmToken stays good. */
export const RETENTION_TOKEN_TTL_MS = 15 * 60 * 1000;
/** At most this many versions are listed in a plan; `versionCount` counts them all. */
export const MAX_LISTED_RETENTION_VERSIONS = 1000;
/** A dry run or a run reads a whole project, batch by batch: the gateway waits this long for it. */
const RETENTION_TIMEOUT_MS = 10 * 60 * 1000;

const count = z.number().int().min(0);

/**
 * Why a glob is not one retention understands, or undefined. A glob is a path whose segments may
 * hold `*` (any characters but `/`) and `?` (one of them), or be exactly `**` (any number of
 * segments); it matches paths as they collide, ignoring case.
 */
export function globIssue(glob: string): string | undefined {
  if (glob.startsWith('/')) return 'must be relative to the project (no leading "/")';
  if (glob.includes('\\')) return 'use forward slashes';
  if (hasControlCharacter(glob)) return 'contains control characters';
  for (const segment of glob.split('/')) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return '"." and ".." segments are not allowed';
    if (segment.includes('**') && segment !== '**') return '"**" must be a whole segment';
  }
  return undefined;
}

export const retentionRuleSchema = z
  .object({
    glob: z
      .string()
      .min(1)
      .max(MAX_PATH_LENGTH)
      .superRefine((glob, ctx) => {
        const issue = globIssue(glob);
        if (issue !== undefined) ctx.addIssue({ code: 'custom', message: issue });
      }),
    /** Keep the file's newest N live versions. */
    keepLast: z.number().int().min(1).max(MAX_KEEP_LAST).optional(),
    /** Keep the versions made in the last D days. */
    keepDays: z.number().int().min(1).max(MAX_KEEP_DAYS).optional(),
  })
  .refine((rule) => rule.keepLast !== undefined || rule.keepDays !== undefined, { message: 'a rule keeps by keepLast, keepDays or both', path: ['keepLast'] });
export type RetentionRule = z.output<typeof retentionRuleSchema>;

export const retentionBodySchema = z.object({ rules: z.array(retentionRuleSchema).max(MAX_RETENTION_RULES) });

export const retentionReplySchema = z.object({
  rules: z.array(retentionRuleSchema),
  /** Who last set the rules, and when; null while the project never had any. */
  updatedAt: z.string().nullable(),
  updatedBy: userRefSchema.nullable(),
  /** When the periodic job last applied them. */
  lastRunAt: z.string().nullable(),
});
export type RetentionReply = z.infer<typeof retentionReplySchema>;

export const getRetention = defineContract('upload', 'get_retention', z.object({ actor: actorSchema }), retentionReplySchema, {
  method: 'get',
  path: RETENTION_PATH,
  tag: STORAGE,
  summary: "The project's retention rules",
  auth: 'key',
});

export const setRetention = defineContract('upload', 'set_retention', retentionBodySchema.safeExtend({ actor: actorSchema }), retentionReplySchema, {
  method: 'put',
  path: RETENTION_PATH,
  tag: STORAGE,
  summary: "Replace the project's retention rules (owners and admins)",
  description:
    'A version is removed only when every rule whose glob matches its path lets it go; paths no rule matches are never touched. Branch tips, versions a draft stages and files someone holds a lock on are always kept. `rules: []` removes them all.',
  auth: 'key',
  write: true,
  body: retentionBodySchema,
  errors: [403],
  request: ({ actor, body }) => ({ actor, ...body }),
});

export const retentionVersionSchema = z.object({
  fileId: uuid,
  path: z.string(),
  version: positiveVersion,
  size: byteSize,
  sha256: z.string(),
  createdAt: z.string(),
  /** The glob of the first rule (in the rules' order) that matches the path. */
  rule: z.string(),
});
export type RetentionVersion = z.infer<typeof retentionVersionSchema>;

export const retentionPlanSchema = z.object({
  dryRun: z.boolean(),
  /** The run's id (its `retention.applied` event's); the same for a dry run and the run it confirms. */
  runId: uuid,
  /** The versions it removes (or removed), in path order, at most 1,000. */
  versions: z.array(retentionVersionSchema),
  versionCount: count,
  versionsTruncated: z.boolean(),
  /** Files with versions removed. */
  fileCount: count,
  logicalBytes: byteSize,
  /**
   * Objects no other live version (nor Git LFS) uses, which the collector deletes after its grace.
   * Counted batch by batch: content two removed versions of different batches share counts as kept.
   */
  freedObjects: count,
  freedBytes: byteSize,
  keptObjects: count,
  /** Files with versions the rules would remove, left alone because someone holds a lock on them. */
  lockedFiles: count,
  confirmToken: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** When the run finished; null for a dry run. */
  appliedAt: z.string().nullable(),
});
export type RetentionPlan = z.infer<typeof retentionPlanSchema>;

export const retentionDryRun = defineContract('upload', 'retention_dry_run', z.object({ actor: actorSchema }), retentionPlanSchema, {
  method: 'post',
  path: `${RETENTION_PATH}/dry-run`,
  tag: STORAGE,
  summary: 'What the retention rules would remove now (owners and admins), with the token that confirms it',
  auth: 'key',
  errors: [403],
  timeoutMs: () => RETENTION_TIMEOUT_MS,
});

export const retentionRunBodySchema = z.object({ confirmToken: z.string().min(1).max(1024) });

export const retentionRun = defineContract('upload', 'retention_run', retentionRunBodySchema.safeExtend({ actor: actorSchema }), retentionPlanSchema, {
  method: 'post',
  path: `${RETENTION_PATH}/run`,
  tag: STORAGE,
  summary: 'Remove what a retention dry run listed (owners and admins); 409 `plan_changed` if it changed',
  description:
    'The versions stay in history as removed by retention, with the rule; their downloads answer 410 `version_purged`, and their objects are deleted by the collector once nothing else uses them.',
  auth: 'key',
  write: true,
  body: retentionRunBodySchema,
  errors: [403, 409],
  timeoutMs: () => RETENTION_TIMEOUT_MS,
  request: ({ actor, body }) => ({ actor, ...body }),
});

/** What applied the rules: a run an owner or admin confirmed, or the periodic job. */
export const retentionTriggerSchema = z.enum(['run', 'schedule']);

/** Retention removed versions, by a confirmed run or the periodic job. Goes out through the upload service's outbox. */
export const retentionApplied = defineEvent(
  'retention.applied',
  z.object({
    projectId: uuid,
    runId: uuid,
    trigger: retentionTriggerSchema,
    /** Who confirmed the run; null for the periodic job. */
    by: userRefSchema.nullable(),
    versionCount: count,
    fileCount: count,
    logicalBytes: byteSize,
    freedObjects: count,
    freedBytes: byteSize,
    lockedFiles: count,
    appliedAt: z.string(),
  }),
);
export type RetentionApplied = EventOf<typeof retentionApplied>;
