import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, uuid } from './common.ts';
import {
  branchName,
  commitBodySchema,
  commitEntrySchema,
  commitMessage,
  commitSchema,
  entryColumnsOf,
  entryColumnsSchema,
  MAX_COMMIT_ENTRIES,
  PROJECT_PATH,
} from './commit.ts';

/**
 * Draft commits (docs/api.md, Draft commits): a push above 25,000 files is staged over many calls of up
 * to 25,000 entries each and finalized as one atomic commit.
 */
export const draftSchema = z.object({
  id: uuid,
  message: z.string(),
  branch: z.string(),
  /** Distinct files staged so far. */
  fileCount: z.number().int().min(0),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type Draft = z.infer<typeof draftSchema>;

export const createBodySchema = z.object({ message: commitMessage, branch: branchName.optional() });
export type CreateBody = z.infer<typeof createBodySchema>;

const DRAFTS_PATH = `${PROJECT_PATH}/drafts`;
const DRAFT_PATH = `${DRAFTS_PATH}/:draftId`;
/** Every call, reads included, counts against the write rate limit. */
const draftRoute = { tag: 'Drafts', auth: 'key', write: true } as const;

export const create = defineContract('commit', 'create_draft', z.object({ actor: actorSchema, ...createBodySchema.shape }), draftSchema, {
  ...draftRoute,
  method: 'post',
  path: DRAFTS_PATH,
  summary: 'Open a draft',
  body: createBodySchema,
  status: 201,
});

/** A staging call's body: a commit's entries, with the same per-entry rules and limit. */
export const stageBodySchema = commitBodySchema.pick({ fileVersions: true });

const draftRef = { actor: actorSchema, draftId: uuid };

/** The entries travel as a commit's columns; message and branch are the draft's. */
export const stage = defineContract(
  'commit',
  'stage_draft_files',
  z.object({ ...draftRef, entries: entryColumnsSchema }),
  z.object({ id: uuid, fileCount: z.number().int().min(0) }),
  {
    ...draftRoute,
    method: 'post',
    path: `${DRAFT_PATH}/files`,
    summary: 'Stage 1 to 25,000 file versions',
    body: stageBodySchema,
    documentedBody: stageBodySchema.extend({ fileVersions: z.array(commitEntrySchema).min(1).max(MAX_COMMIT_ENTRIES) }),
    batch: { field: 'fileVersions', max: MAX_COMMIT_ENTRIES, what: 'file versions', hint: 'stage larger pushes over several calls' },
    errors: [409, 422],
    request: ({ actor, params, body }) => ({ actor, draftId: params.draftId, entries: entryColumnsOf(body.fileVersions) }),
  },
);

export const get = defineContract('commit', 'get_draft', z.object(draftRef), draftSchema, {
  ...draftRoute,
  method: 'get',
  path: DRAFT_PATH,
  summary: 'A draft and what it holds',
});

/**
 * The longest a draft's lock fence lives: the commit service asks for a lifetime scaled to the
 * draft's size up to this, and its transaction must commit before the fence could lapse.
 */
export const MAX_FINALIZE_FENCE_MS = 600_000;

/**
 * How long the gateway waits for a draft's commit: the fence's longest life and a margin for what
 * comes before it (the idempotency check, the draft's read). A commit the gateway gave up on (504)
 * still commits or rolls back, and a retry with the same X-Idempotency-Key answers its 201.
 */
export const FINALIZE_TIMEOUT_MS = MAX_FINALIZE_FENCE_MS + 30_000;

export const finalize = defineContract('commit', 'commit_draft', z.object({ ...draftRef, idempotencyKey: z.string().optional() }), commitSchema, {
  ...draftRoute,
  method: 'post',
  path: `${DRAFT_PATH}/commit`,
  summary: 'Commit the draft as one commit',
  idempotent: true,
  status: 201,
  errors: [409, 422],
  // A draft of a million files takes minutes, not the bus's default 30 s.
  timeoutMs: () => FINALIZE_TIMEOUT_MS,
});

export const remove = defineContract('commit', 'delete_draft', z.object(draftRef), z.object({ id: uuid, deleted: z.literal(true) }), {
  ...draftRoute,
  method: 'delete',
  path: DRAFT_PATH,
  summary: 'Discard a draft',
});
