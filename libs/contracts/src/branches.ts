import { z } from 'zod';
import { defineContract } from './contract.ts';
import { defineEvent } from './event.ts';
import { actorSchema, positiveVersion, uuid, userRefSchema } from './common.ts';
import { branchName, commitMessage, commitSchema, MAIN_BRANCH, MAX_COMMIT_ENTRIES, pageQuerySchema, PROJECT_PATH } from './commit.ts';

const sequenceNum = z.number().int().min(1);

const BRANCHES_PATH = `${PROJECT_PATH}/branches`;
const BRANCHES = 'Branches';
const nameParam = { name: branchName };

/** A branch (docs/api.md, Branches). Main always exists: before its first commit it has no head. */
export const branchSchema = z.object({
  name: z.string(),
  /** The last commit on the branch's lineage: its own, or the fork point until it commits. */
  headCommitId: uuid.nullable(),
  headSequenceNum: sequenceNum.nullable(),
  /** Null for main. sequenceNum: the head of the branch forked from then (null: it had none). */
  forkedFrom: z.object({ branch: z.string(), sequenceNum: sequenceNum.nullable() }).nullable(),
  /** Null for main until the project's first commit or branch. */
  createdAt: z.string().nullable(),
  /** Null for main and for branches made before branches were recorded with their creator. */
  createdBy: userRefSchema.nullable(),
});
export type Branch = z.infer<typeof branchSchema>;

export const list = defineContract(
  'commit',
  'list_branches',
  z.object({ actor: actorSchema, ...pageQuerySchema.shape }),
  z.object({ data: z.array(branchSchema), nextCursor: z.string().nullable() }),
  { method: 'get', path: BRANCHES_PATH, tag: BRANCHES, summary: 'List branches', auth: 'key', query: pageQuerySchema },
);

export const createBodySchema = z.object({ name: branchName, from: branchName.default(MAIN_BRANCH) });

export const create = defineContract('commit', 'create_branch', z.object({ actor: actorSchema, ...createBodySchema.shape }), branchSchema, {
  method: 'post',
  path: BRANCHES_PATH,
  tag: BRANCHES,
  summary: 'Create a branch',
  auth: 'key',
  write: true,
  body: createBodySchema,
  status: 201,
  errors: [409],
});

export const remove = defineContract(
  'commit',
  'delete_branch',
  z.object({ actor: actorSchema, name: branchName }),
  z.object({ name: z.string(), deleted: z.literal(true) }),
  { method: 'delete', path: `${BRANCHES_PATH}/:name`, tag: BRANCHES, summary: 'Delete a branch', auth: 'key', write: true, params: nameParam, errors: [409] },
);

/** How a conflict is settled: the source's state of the file, or the target's (nothing to bring). */
export const resolutionSchema = z.object({ fileId: uuid, take: z.enum(['source', 'target']) });
export type Resolution = z.infer<typeof resolutionSchema>;

export const mergeBodySchema = z.object({
  into: branchName.default(MAIN_BRANCH),
  message: commitMessage.optional(),
  resolutions: z.array(resolutionSchema).max(MAX_COMMIT_ENTRIES).default([]),
});

/** A file changed on both sides since the fork point (null version: absent or deleted there). */
export const conflictSchema = z.object({
  fileId: uuid,
  path: z.string(),
  sourceVersion: positiveVersion.nullable(),
  targetVersion: positiveVersion.nullable(),
  baseVersion: positiveVersion.nullable(),
});
export type Conflict = z.infer<typeof conflictSchema>;

export const mergeCommitSchema = commitSchema.extend({ kind: z.literal('merge') });

/** Merges the branch `source` into `into` as one merge commit on `into` (docs/api.md, Merge). */
export const merge = defineContract(
  'commit',
  'merge_branch',
  z.object({ actor: actorSchema, source: branchName, ...mergeBodySchema.shape }),
  mergeCommitSchema,
  {
    method: 'post',
    path: `${BRANCHES_PATH}/:name/merge`,
    tag: BRANCHES,
    summary: 'Merge a branch into another',
    auth: 'key',
    write: true,
    params: nameParam,
    body: mergeBodySchema,
    // Counted before each resolution is validated, so an oversized merge fails with 413 as a commit does.
    batch: { field: 'resolutions', max: MAX_COMMIT_ENTRIES, what: 'resolutions' },
    status: 201,
    errors: [409, 422],
    request: ({ actor, params, body }) => ({ actor, source: params.name, ...body }),
  },
);

/** One stretch of a lineage: commits of `branch` numbered after `after`, up to `through` (null: no end). */
export const segmentSchema = z.object({ branch: z.string(), after: z.number().int().min(0), through: z.number().int().min(0).nullable() });

/**
 * A branch was created (by POST; a branch made by its first commit comes with that commit.created)
 * or deleted. Published through the commit service's outbox, in the project's order with its commits.
 */
export const branchChanged = defineEvent(
  'branch.changed',
  z.object({
    projectId: uuid,
    /** The project's count of branch changes, this one included: a consumer applies each once, in order. */
    change: z.number().int().min(1),
    /** The project's last commit when it happened: it comes after that commit and before the next. */
    afterSeq: z.number().int().min(0),
    name: z.string(),
    action: z.enum(['created', 'deleted']),
    /** For a creation: the branch it was forked from (its state at afterSeq is the new branch's) and the new lineage. */
    forkedFrom: z.string().nullable(),
    lineage: z.array(segmentSchema),
  }),
);
export type BranchChanged = z.infer<typeof branchChanged.schema>;
