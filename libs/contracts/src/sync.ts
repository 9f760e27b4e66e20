import { z } from 'zod';
import { isAppError } from '@lode/errors';
import { defineContract } from './contract.ts';
import { actorSchema, isVersion, MAX_INT4, positiveVersion, sha256Hex, uuid } from './common.ts';
import { branchName } from './commit.ts';
import { normalizePath } from './paths.ts';

/**
 * Files per sync request (docs/api.md): a few MB of JSON each way, one query in the
 * service, and a workspace of 100,000 files in ten requests.
 */
export const MAX_SYNC_BATCH = 10_000;
/** Batches per sync session: 10,000 batches of 10,000 files cover any workspace we expect. */
export const MAX_SESSION_BATCHES = 10_000;
/** Remote-only rows per page between the gateway and the service while the response streams. */
export const REMOTE_ONLY_PAGE = 5000;

/** A listed file's sync statuses; the exact condition of each is in docs/api.md (Sync). */
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

/** One entry of a request's `files`, with the issues a client gets for it (400 naming `files.<i>.<field>`). */
export const localFileSchema = z.object({
  path: localPath,
  sha256: sha256Hex,
  /** The version this client last synced; only needed to tell `conflict` from `modified`. */
  baseVersion: positiveVersion.optional(),
});

/** The same entry without its transforms, which zod checks several times faster; the path rules come after. */
const localFileShapes = z.array(z.object({ path: z.string(), sha256: sha256Hex.in, baseVersion: positiveVersion.optional() }));

/**
 * A batch's files column by column: 10,000 files are four arrays to encode, check and decode, not
 * 10,000 objects. Index i of every column is the request's entry i.
 */
export interface ListedFiles {
  /** As sent, in NFC: the row of each file names it so. */
  paths: string[];
  /** The case-folded keys the read model matches (`pathKey`). */
  keys: string[];
  /** Lower case. */
  sha256s: string[];
  baseVersions: (number | null)[];
}

/**
 * The request's `files`, checked by zod for their shape and by one loop for the path rules: zod
 * parsing each entry with its transforms is too slow for a full batch. Only an
 * invalid batch is parsed again entry by entry, so its issues are exactly those of an array of
 * localFileSchema.
 */
const listedFiles = z
  .array(z.unknown())
  .max(MAX_SYNC_BATCH)
  .transform((entries, ctx): ListedFiles => {
    const shaped = localFileShapes.safeParse(entries);
    const columns = shaped.success ? toColumns(shaped.data) : undefined;
    if (columns) return columns;
    const strict = z.array(localFileSchema).safeParse(entries);
    if (strict.success) return toColumns(strict.data)!;
    for (const issue of strict.error.issues) ctx.issues.push({ ...issue, input: undefined });
    return z.NEVER;
  });

/** The columns of well-shaped entries, or undefined when a path breaks a rule of normalizePath. */
function toColumns(entries: readonly { path: string; sha256: string; baseVersion?: number }[]): ListedFiles | undefined {
  const columns: ListedFiles = { paths: [], keys: [], sha256s: [], baseVersions: [] };
  for (const { path, sha256, baseVersion } of entries) {
    const normalized = normalizePath(path);
    if (isAppError(normalized)) return undefined;
    columns.paths.push(normalized.path);
    columns.keys.push(normalized.key);
    columns.sha256s.push(sha256.toLowerCase());
    columns.baseVersions.push(baseVersion ?? null);
  }
  return columns;
}

/**
 * A workspace sent over several requests: each batch names the session and its number (0, 1, …),
 * so the last one (with includeRemoteOnly) leaves out every path any batch listed.
 */
export const sessionSchema = z.object({
  id: uuid,
  batch: z
    .number()
    .int()
    .min(0)
    .max(MAX_SESSION_BATCHES - 1),
});
export type SyncSession = z.infer<typeof sessionSchema>;

/** POST /sync's body, as the gateway validates it. */
export const syncBodySchema = z.object({
  files: listedFiles,
  includeRemoteOnly: z.boolean().optional(),
  branch: branchName.optional(),
  session: sessionSchema.optional(),
});
export type SyncBody = z.infer<typeof syncBodySchema>;

const sameLength = (columns: Record<string, readonly unknown[]>) => new Set(Object.values(columns).map((c) => c.length)).size <= 1;

/**
 * An array whose values are checked by one loop, not element by element by zod: a batch's columns
 * hold up to 60,000 values, and zod's per-element parse, called for every schema of the process,
 * cost several milliseconds per batch at each end of the bus. The array is passed on, not copied.
 */
function column<T>(what: string, is: (value: unknown) => value is T) {
  return z.custom<T[]>((value) => Array.isArray(value) && value.length <= MAX_SYNC_BATCH && value.every(is), `must be an array of ${what}`);
}
const isString = (value: unknown): value is string => typeof value === 'string';
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isIntegerOrNull = (value: unknown): value is number | null => value === null || Number.isSafeInteger(value);
const isVersionOrNull = (value: unknown): value is number | null => value === null || isVersion(value);
const statusSet: ReadonlySet<unknown> = new Set(syncStatuses);
const isStatus = (value: unknown): value is SyncStatus => statusSet.has(value);
// normalizePath refuses control characters, so a key never holds the line break the service joins keys with.
const isPathKey = (value: unknown): value is string => typeof value === 'string' && !value.includes('\n');

/**
 * What the service needs of a batch: the keys, hashes and bases of the files, in request order.
 * The gateway checked the paths and hashes (a 400 is the client's); here only their types are
 * checked, so 10,000 files are not validated twice.
 */
export const batchFilesSchema = z
  .object({
    keys: column('path keys', isPathKey),
    sha256s: column('strings', isString),
    baseVersions: column('versions or nulls', isVersionOrNull),
  })
  .refine(sameLength, 'one key, hash and base per file');
export type BatchFiles = z.infer<typeof batchFilesSchema>;

/**
 * Sync rows column by column, without their paths; index i is row i. The remote fields
 * are null where they do not apply (docs/api.md), and the remote hash also where the row is
 * up_to_date: it is then the listed hash, which the caller has (half of a batch's reply is hashes).
 * Only types are checked: the gateway turns these into the rows' JSON with JSON.stringify.
 */
export const syncColumnsSchema = z
  .object({
    statuses: column('statuses', isStatus),
    fileIds: column('strings or nulls', isStringOrNull),
    remoteVersions: column('integers or nulls', isIntegerOrNull),
    remoteSha256s: column('strings or nulls', isStringOrNull),
    remoteCommitSeqs: column('integers or nulls', isIntegerOrNull),
    remoteSizes: column('integers or nulls', isIntegerOrNull),
  })
  .refine(sameLength, 'one value per row in each column');
export type SyncColumns = z.infer<typeof syncColumnsSchema>;

/** Compares one batch with the branch once the read model holds the project's latest commit. */
export const compare = defineContract(
  'sync',
  'compare',
  z.object({
    actor: actorSchema,
    files: batchFilesSchema,
    includeRemoteOnly: z.boolean().optional(),
    branch: branchName.optional(),
    session: sessionSchema.optional(),
  }),
  z.object({
    /** One row per listed file, in request order. */
    rows: syncColumnsSchema,
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
  z
    .object({ paths: column('paths', isString), rows: syncColumnsSchema, after: z.string().nullable() })
    .refine((page) => page.paths.length === page.rows.statuses.length, 'one path per row'),
);

// ---- Changes: what changed on a branch since a commit, for clients that keep the tree they synced ----

/** Rows per page of GET /changes. */
export const MAX_CHANGES_PAGE = 5000;
export const DEFAULT_CHANGES_PAGE = 1000;
/** The generation of main, which is never re-created; any other branch's is a UUID. */
export const MAIN_GENERATION = 'main';

export const changesQuerySchema = z.object({
  branch: branchName.optional(),
  /** The latestCommitSeq the client's copy of the branch is as of: files changed after it are listed. */
  since: z.coerce.number().int().min(0).max(MAX_INT4, `must be at most ${MAX_INT4}`),
  /**
   * The branch generation the client's copy came from (a previous reply's `generation`): a branch
   * deleted and created again under the same name answers changes_expired rather than a diff
   * against another branch's tree.
   */
  generation: z.string().min(1).max(64).optional(),
  cursor: z.string().min(1).max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_CHANGES_PAGE, `must be at most ${MAX_CHANGES_PAGE}`).default(DEFAULT_CHANGES_PAGE),
});

/** A file whose tip changed: live with its new version, or deleted (no content). */
export const changeSchema = z.object({
  path: z.string(),
  fileId: uuid,
  status: z.enum(['live', 'deleted']),
  version: z.number().int().nullable(),
  sha256: z.string().nullable(),
  size: z.number().int().nullable(),
  /** The commit that last changed the file, its deletion included. */
  commitSeq: z.number().int(),
});
export type Change = z.infer<typeof changeSchema>;

/**
 * The branch's files whose tip changed after `since`, in (commitSeq, path) order, paged. Each page
 * is answered once the read model holds the project's latest commit (as POST /sync), from one
 * snapshot whose latestCommitSeq it names; a later page may list a file again with a later change,
 * which supersedes the earlier row, so the pages together describe the branch as of the last page's
 * latestCommitSeq. 410 changes_expired: the server cannot answer from `since` (a branch re-created,
 * or a sequence it has not reached): the client compares its whole workspace with POST /sync.
 */
export const changes = defineContract(
  'sync',
  'changes',
  z.object({ actor: actorSchema, ...changesQuerySchema.shape }),
  z.object({
    data: z.array(changeSchema),
    latestCommitSeq: z.number().int().min(0),
    /** Names this incarnation of the branch: pass it back as `generation`. */
    generation: z.string(),
    nextCursor: z.string().nullable(),
  }),
  {
    method: 'get',
    path: '/api/v1/projects/:projectId/changes',
    tag: 'Sync',
    summary: 'Files changed on a branch since a commit',
    auth: 'key',
    query: changesQuerySchema,
    errors: [410, 503],
  },
);
