import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, positiveVersion, uuid } from './common.ts';
import { MAX_COMMIT_ENTRIES, PROJECT_PATH } from './commit.ts';
import { unrestorableSchema } from './upload.ts';

/** A restore is one commit, so it is bounded like one. */
export const MAX_RESTORE_FILES = MAX_COMMIT_ENTRIES;

/**
 * How long the gateway waits for a restore: it makes up to three bus calls in a row, each bounded by
 * the bus timeout. A restore still running when the gateway gives up completes, and a retry with the
 * same X-Idempotency-Key answers with its result.
 */
export const RESTORE_TIMEOUT_MS = 120_000;

/** File ids are compared as text by the services: one spelling per id, so `A…` and `a…` are one file. */
export const restoreTargetSchema = z.object({ fileId: uuid.transform((id) => id.toLowerCase()), toVersion: positiveVersion });
export type RestoreTarget = z.infer<typeof restoreTargetSchema>;

export const restoreBodySchema = z.object({
  files: z.array(restoreTargetSchema).min(1, 'must list 1 to 25,000 files').max(MAX_RESTORE_FILES),
});
export type RestoreBody = z.infer<typeof restoreBodySchema>;

/** Why a file was left out of the restore commit (docs/api.md lists when each applies). */
export const skipCodeSchema = z.enum([...unrestorableSchema.options, 'already_current']);
export type SkipCode = z.infer<typeof skipCodeSchema>;

export const skippedSchema = z.object({ fileId: uuid, toVersion: positiveVersion, code: skipCodeSchema, message: z.string() });
export type Skipped = z.infer<typeof skippedSchema>;

export const restoredSchema = z.object({ fileId: uuid, newVersion: positiveVersion });
export type Restored = z.infer<typeof restoredSchema>;

/** A restore's 200 reply. */
export const restoreResultSchema = z.object({
  commitId: uuid,
  sequenceNum: z.number().int().min(1),
  restored: z.array(restoredSchema),
  skipped: z.array(skippedSchema),
});
export type RestoreResult = z.infer<typeof restoreResultSchema>;

export const create = defineContract(
  'restore',
  'create',
  z.object({ actor: actorSchema, restore: restoreBodySchema, idempotencyKey: z.string().optional() }),
  restoreResultSchema,
  {
    method: 'post',
    path: `${PROJECT_PATH}/restore`,
    tag: 'Restore',
    summary: 'Restore files to earlier versions',
    auth: 'key',
    write: true,
    idempotent: true,
    body: restoreBodySchema,
    batch: { field: 'files', max: MAX_RESTORE_FILES, what: 'files' },
    errors: [409, 422],
    request: ({ actor, body, idempotencyKey }) => ({ actor, restore: body, idempotencyKey }),
    timeoutMs: () => RESTORE_TIMEOUT_MS,
  },
);
