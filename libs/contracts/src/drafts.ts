import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, uuid } from './common.ts';
import { branchName, commitBodySchema, commitMessage, commitSchema, entryColumnsSchema } from './commit.ts';

/**
 * Draft commits (spec 4.6, docs/api.md): a push above 25,000 files is staged over many calls of up
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

export const create = defineContract('commit', 'create_draft', z.object({ actor: actorSchema, ...createBodySchema.shape }), draftSchema);

/** A staging call's body: a commit's entries, with the same per-entry rules and limit. */
export const stageBodySchema = commitBodySchema.pick({ fileVersions: true });

const draftRef = { actor: actorSchema, draftId: uuid };

/** The entries travel as a commit's columns; message and branch are the draft's. */
export const stage = defineContract(
  'commit',
  'stage_draft_files',
  z.object({ ...draftRef, entries: entryColumnsSchema }),
  z.object({ id: uuid, fileCount: z.number().int().min(0) }),
);

export const get = defineContract('commit', 'get_draft', z.object(draftRef), draftSchema);

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

export const finalize = defineContract('commit', 'commit_draft', z.object({ ...draftRef, idempotencyKey: z.string().optional() }), commitSchema);

export const remove = defineContract('commit', 'delete_draft', z.object(draftRef), z.object({ id: uuid, deleted: z.literal(true) }));
