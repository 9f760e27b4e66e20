import { z } from 'zod';
import { isAppError } from '@lode/errors';
import { defineContract } from './contract.ts';
import { actorSchema, byteSize, positiveVersion, sha256Hex, uuid } from './common.ts';
import { branchName } from './commit.ts';
import { normalizePath } from './paths.ts';

/**
 * Files per sync request (docs/api.md): about 1.5 MB of JSON in and 3 MB out, one query in the
 * service, and a workspace of 100,000 files in ten requests.
 */
export const MAX_SYNC_BATCH = 10_000;
/** Batches per sync session: 10,000 batches of 10,000 files cover any workspace we expect. */
export const MAX_SESSION_BATCHES = 10_000;
/** Remote-only rows per page between the gateway and the service while the response streams. */
export const REMOTE_ONLY_PAGE = 5000;

/** Spec 3; the exact condition of each is in docs/api.md (Sync). */
export const syncStatuses = ['up_to_date', 'outdated', 'missing', 'local_only', 'modified', 'conflict', 'deleted_remote'] as const;
export const syncStatusSchema = z.enum(syncStatuses);
export type SyncStatus = z.infer<typeof syncStatusSchema>;

/** A path validated and put in NFC exactly as the upload service stores it, so both match the same file. */
const localPath = z.string().transform((raw, ctx) => {
  const normalized = normalizePath(raw);
  if (!isAppError(normalized)) return normalized.path;
  ctx.issues.push({ code: 'custom', message: normalized.message, input: raw });
  return z.NEVER;
});

export const localFileSchema = z.object({
  path: localPath,
  sha256: sha256Hex,
  /** The version this client last synced; only needed to tell `conflict` from `modified`. */
  baseVersion: positiveVersion.optional(),
});
export type LocalFile = z.infer<typeof localFileSchema>;

/**
 * A workspace sent over several requests: each batch names the session and its number (0, 1, …),
 * so the last one (with includeRemoteOnly) leaves out every path any batch listed.
 */
export const sessionSchema = z.object({ id: uuid, batch: z.number().int().min(0).max(MAX_SESSION_BATCHES - 1) });
export type SyncSession = z.infer<typeof sessionSchema>;

export const syncBodySchema = z.object({
  files: z.array(localFileSchema).max(MAX_SYNC_BATCH),
  includeRemoteOnly: z.boolean().optional(),
  branch: branchName.optional(),
  session: sessionSchema.optional(),
});
export type SyncBody = z.infer<typeof syncBodySchema>;

/** One row per file (spec 4.2); the remote fields are null where they do not apply (docs/api.md). */
export const syncRowSchema = z.object({
  path: z.string(),
  status: syncStatusSchema,
  fileId: uuid.nullable(),
  remoteVersion: positiveVersion.nullable(),
  remoteSha256: z.string().nullable(),
  remoteCommitSeq: z.number().int().min(1).nullable(),
  remoteSize: byteSize.nullable(),
});
export type SyncRow = z.infer<typeof syncRowSchema>;

/** Compares one batch with the branch once the read model holds the project's latest commit. */
export const compare = defineContract(
  'sync',
  'compare',
  z.object({ actor: actorSchema, body: syncBodySchema }),
  z.object({
    files: z.array(syncRowSchema),
    latestCommitSeq: z.number().int().min(0),
    /** With includeRemoteOnly: the session whose listed paths listRemoteOnly leaves out. */
    remoteOnlySession: uuid.nullable(),
  }),
);

/**
 * One page of the branch's live files that the session did not list, in path-key order after
 * `after` ('' for the first page). The last page (`after: null` in the reply) ends the session.
 */
export const listRemoteOnly = defineContract(
  'sync',
  'list_remote_only',
  z.object({
    actor: actorSchema,
    branch: branchName.optional(),
    sessionId: uuid,
    after: z.string(),
    limit: z.number().int().min(1).max(REMOTE_ONLY_PAGE).default(REMOTE_ONLY_PAGE),
  }),
  z.object({ files: z.array(syncRowSchema), after: z.string().nullable() }),
);
