import { z } from 'zod';
import { AppError } from '@lode/errors';
import { defineContract } from './contract.ts';
import { defineEvent } from './event.ts';
import { actorSchema, byteSize, isSize, isVersion, positiveVersion, SHA256_HEX, sha256Hex, uuid, userRefSchema } from './common.ts';
import { isUuid, uuidList } from './uuid-list.ts';
import { loopChecked } from './loop-checked.ts';
import { normalizePath } from './paths.ts';

export const MAX_COMMIT_ENTRIES = 25_000;
/** Where every route of one project begins; a key reaches only its own project's. */
export const PROJECT_PATH = '/api/v1/projects/:projectId';
const COMMITS = 'Commits';
export const MAIN_BRANCH = 'main';
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

/** Git-like names: segments of letters, digits, `.`, `_` and `-` joined by `/`; no `..`. */
export const branchName = z
  .string()
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/, 'must be segments of letters, digits, ".", "_" and "-" separated by "/"')
  .refine((name) => !name.includes('..'), 'must not contain ".."');

export const commitEntrySchema = z.discriminatedUnion('action', [
  z.object({ fileId: uuid, action: z.enum(['add', 'modify']), version: positiveVersion }),
  // A delete removes whatever version the branch holds; a version sent with it is not needed.
  z.object({ fileId: uuid, action: z.literal('delete'), version: positiveVersion.optional() }),
]);
export type CommitEntryInput = z.infer<typeof commitEntrySchema>;

export const commitMessage = z.string().trim().min(1, 'must not be empty').max(10_000);

/** A body's entries: zod's discriminated union per entry is too slow for a 25,000-file commit. */
const commitEntries = loopChecked(z.array(z.unknown()).min(1, 'must list 1 to 25,000 entries').max(MAX_COMMIT_ENTRIES), commitEntrySchema, wellFormedEntries);

/** The entries as commitEntrySchema outputs them (unknown fields dropped, ids lower-cased), or undefined if any is not plainly valid. */
function wellFormedEntries(values: readonly unknown[]): CommitEntryInput[] | undefined {
  const entries: CommitEntryInput[] = [];
  for (const value of values) {
    if (typeof value !== 'object' || value === null) return undefined;
    const { fileId, action, version } = value as Record<string, unknown>;
    if (typeof fileId !== 'string' || !isUuid(fileId)) return undefined;
    if (action === 'add' || action === 'modify') {
      if (!isVersion(version)) return undefined;
      entries.push({ fileId: fileId.toLowerCase(), action, version });
    } else if (action === 'delete') {
      if (version !== undefined && !isVersion(version)) return undefined;
      entries.push(version === undefined ? { fileId: fileId.toLowerCase(), action } : { fileId: fileId.toLowerCase(), action, version });
    } else return undefined;
  }
  return entries;
}

export const commitBodySchema = z.object({
  message: commitMessage,
  fileVersions: commitEntries,
  branch: branchName.optional(),
});
export type CommitBody = z.infer<typeof commitBodySchema>;

/**
 * A commit body as it travels to the commit service: the same entries as columns (entry i is
 * fileIds[i], actions[i], versions[i]; a delete's version is null). Three flat arrays are about half
 * the bytes of 25,000 objects and validate far faster.
 */
const entryColumns = {
  fileIds: uuidList(MAX_COMMIT_ENTRIES, { count: 1, message: 'must list 1 to 25,000 entries' }),
  actions: z.array(z.enum(['add', 'modify', 'delete'])),
  versions: z.array(positiveVersion.nullable()),
};
export type EntryColumns = z.infer<z.ZodObject<typeof entryColumns>>;

function checkAligned(ctx: z.core.ParsePayload<EntryColumns>): void {
  const { fileIds, actions, versions } = ctx.value;
  if (actions.length !== fileIds.length || versions.length !== fileIds.length) {
    ctx.issues.push({ code: 'custom', message: 'fileIds, actions and versions must have one value per entry', input: ctx.value, path: ['actions'] });
    return;
  }
  const missing = actions.findIndex((action, i) => (action === 'delete') !== (versions[i] === null));
  if (missing >= 0)
    ctx.issues.push({ code: 'custom', message: 'add and modify need a version; a delete has none', input: ctx.value, path: ['versions', missing] });
}

/** A batch's entries alone, as columns (draft commits stage them: libs/contracts drafts.ts). */
export const entryColumnsSchema = z.object(entryColumns).check(checkAligned);

export const commitColumnsSchema = z.object({ message: commitMessage, branch: branchName.optional(), ...entryColumns }).check(checkAligned);
export type CommitColumns = z.infer<typeof commitColumnsSchema>;

export function toColumns(body: CommitBody): CommitColumns {
  return { message: body.message, branch: body.branch, ...entryColumnsOf(body.fileVersions) };
}

/** A batch's entries as columns (a delete's version is null). */
export function entryColumnsOf(entries: CommitBody['fileVersions']): EntryColumns {
  return {
    fileIds: entries.map((e) => e.fileId),
    actions: entries.map((e) => e.action),
    versions: entries.map((e) => (e.action === 'delete' ? null : e.version)),
  };
}

/** A list's page in the query: `limit` 1 to 200 (default 50) and the previous page's `nextCursor`. */
export const pageQuerySchema = z.object({
  cursor: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`).default(DEFAULT_PAGE_SIZE),
});

export const commitSchema = z.object({
  id: uuid,
  sequenceNum: z.number().int().min(1),
  message: z.string(),
  fileCount: z.number().int().min(0),
  branch: z.string(),
});
export type Commit = z.infer<typeof commitSchema>;

/** `kind`: set by the restore service for its commits; the gateway never sends it (a client's commit). */
export const create = defineContract(
  'commit',
  'create',
  z.object({ actor: actorSchema, commit: commitColumnsSchema, idempotencyKey: z.string().optional(), kind: z.enum(['commit', 'restore']).default('commit') }),
  commitSchema,
  {
    method: 'post',
    path: `${PROJECT_PATH}/commits`,
    tag: COMMITS,
    summary: 'Commit confirmed versions and deletions',
    auth: 'key',
    write: true,
    idempotent: true,
    body: commitBodySchema,
    documentedBody: commitBodySchema.extend({ fileVersions: z.array(commitEntrySchema).min(1).max(MAX_COMMIT_ENTRIES) }),
    batch: {
      field: 'fileVersions',
      max: MAX_COMMIT_ENTRIES,
      what: 'file versions',
      hint: 'larger pushes are staged with draft commits and finalized as one commit (docs/api.md)',
    },
    status: 201,
    errors: [409, 422],
    request: ({ actor, body, idempotencyKey }) => ({ actor, commit: toColumns(body), idempotencyKey }),
  },
);

/**
 * A purged version's record: when, by whom, and why. An obliteration names who ran it; retention
 * names the rule (its glob) that removed the version, and who ran it, or null when the periodic job did.
 */
export const purgeSchema = z.object({
  at: z.string(),
  by: userRefSchema.nullable(),
  reason: z.enum(['obliterate', 'retention']),
  /** The retention rule's glob, for a version retention removed. */
  rule: z.string().optional(),
});
export type Purge = z.infer<typeof purgeSchema>;

export const fileVersionSchema = z.object({
  id: uuid,
  version: positiveVersion,
  size: byteSize,
  sha256: z.string(),
  uploaderId: uuid,
  uploaderName: z.string(),
  commitId: uuid,
  /** Null once the version was obliterated (`purged`): its content is gone for good. */
  downloadUrl: z.string().nullable(),
  createdAt: z.string(),
  /** Who obliterated it, when, and why; null for a version that is there. */
  purged: purgeSchema.nullable(),
});
export type FileVersion = z.infer<typeof fileVersionSchema>;

export const listVersions = defineContract(
  'commit',
  'list_versions',
  z.object({
    actor: actorSchema,
    fileId: uuid,
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  }),
  z.object({ data: z.array(fileVersionSchema), nextCursor: z.string().nullable() }),
  {
    method: 'get',
    path: `${PROJECT_PATH}/files/:fileId/versions`,
    tag: COMMITS,
    summary: "A file's committed versions on main, newest first",
    auth: 'key',
    query: pageQuerySchema,
  },
);

/**
 * The project's latest commit sequence number (0 before the first commit) and how many branch
 * changes it has had, for read models that must catch up with both before answering (read your
 * writes).
 */
export const latestSequence = defineContract(
  'commit',
  'latest_sequence',
  z.object({ projectId: uuid }),
  z.object({ sequenceNum: z.number().int().min(0), branchChanges: z.number().int().min(0) }),
);

/** A file's committed state on a branch's tree. A deleted file keeps its last version, sha256 and size. */
export const treeStateSchema = z.object({ fileId: uuid, version: positiveVersion, sha256: z.string(), size: byteSize, deleted: z.boolean() });
export type TreeState = z.infer<typeof treeStateSchema>;

/**
 * Main's committed state of these files, for services that decide from it (restore). Files never
 * committed on main, and files of other projects, are absent from the reply.
 */
export const treeStates = defineContract(
  'commit',
  'tree_states',
  z.object({ projectId: uuid, fileIds: uuidList(MAX_COMMIT_ENTRIES) }),
  z.object({ files: z.array(treeStateSchema) }),
);

export const committedEntrySchema = z.object({
  fileId: uuid,
  path: z.string(),
  action: z.enum(['add', 'modify', 'delete']),
  /** Null for a delete. */
  version: positiveVersion.nullable(),
  sha256: sha256Hex.nullable(),
  size: byteSize.nullable(),
});
export type CommittedEntry = z.infer<typeof committedEntrySchema>;

const ENTRY_ACTIONS: ReadonlySet<unknown> = new Set(['add', 'modify', 'delete']);

/** The entries as committedEntrySchema outputs them, or undefined if any is not plainly valid. */
function wellFormedCommitted(values: readonly unknown[]): CommittedEntry[] | undefined {
  const entries: CommittedEntry[] = [];
  for (const value of values) {
    if (typeof value !== 'object' || value === null) return undefined;
    const { fileId, path, action, version, sha256, size } = value as Record<string, unknown>;
    if (typeof fileId !== 'string' || !isUuid(fileId) || typeof path !== 'string' || !ENTRY_ACTIONS.has(action)) return undefined;
    if (!(version === null || isVersion(version)) || !(size === null || isSize(size))) return undefined;
    if (!(sha256 === null || (typeof sha256 === 'string' && SHA256_HEX.test(sha256)))) return undefined;
    entries.push({ fileId: fileId.toLowerCase(), path, action: action as CommittedEntry['action'], version, sha256: sha256?.toLowerCase() ?? null, size });
  }
  return entries;
}

/** What made a commit: a client's commit, a restore, a merge of branches or a finalized draft commit. */
export const commitKindSchema = z.enum(['commit', 'restore', 'merge', 'draft']);
export type CommitKind = z.infer<typeof commitKindSchema>;

/**
 * A commit became visible. A large commit is published as several parts (`part` of `parts`, in
 * order, each under NATS's max_payload); every part repeats the commit's header fields.
 */
export const commitCreated = defineEvent(
  'commit.created',
  z.object({
    commitId: uuid,
    projectId: uuid,
    branch: z.string(),
    sequenceNum: z.number().int().min(1),
    /** Absent from events published before kinds were recorded: those read as a commit. */
    kind: commitKindSchema.optional(),
    /**
     * How many branch changes (branch.changed) the project had before this commit: a consumer that
     * follows both applies those first. Absent from events published before they were counted.
     */
    branchChanges: z.number().int().min(0).optional(),
    message: z.string(),
    author: userRefSchema,
    createdAt: z.string(),
    fileCount: z.number().int().min(0),
    part: z.number().int().min(1),
    parts: z.number().int().min(1),
    /** Each part carries up to thousands: checked by one loop (loop-checked.ts) at every consumer. */
    entries: loopChecked(z.array(z.unknown()), committedEntrySchema, wellFormedCommitted),
  }),
);
export type CommitCreated = z.infer<typeof commitCreated.schema>;

/** A commit as the log shows it. */
export const logEntrySchema = commitSchema.extend({
  kind: commitKindSchema,
  authorId: uuid,
  authorName: z.string(),
  createdAt: z.string(),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

/** The log's query: a branch (main when omitted) and the page. */
export const logQuerySchema = pageQuerySchema.extend({ branch: branchName.default(MAIN_BRANCH) });

/** A branch's lineage, newest first (docs/api.md, Commit log). */
export const listLog = defineContract(
  'commit',
  'list_log',
  z.object({ actor: actorSchema, ...logQuerySchema.shape }),
  z.object({ data: z.array(logEntrySchema), nextCursor: z.string().nullable() }),
  { method: 'get', path: `${PROJECT_PATH}/commits`, tag: COMMITS, summary: "A branch's commit log, newest first", auth: 'key', query: logQuerySchema },
);

export const getCommit = defineContract('commit', 'get_commit', z.object({ actor: actorSchema, commitId: uuid }), logEntrySchema, {
  method: 'get',
  path: `${PROJECT_PATH}/commits/:commitId`,
  tag: COMMITS,
  summary: 'One commit',
  auth: 'key',
});

/** What a commit changed, in path order (byte order), a page at a time. */
export const listCommitFiles = defineContract(
  'commit',
  'list_commit_files',
  z.object({ actor: actorSchema, commitId: uuid, ...pageQuerySchema.shape }),
  z.object({ data: z.array(committedEntrySchema), nextCursor: z.string().nullable() }),
  {
    method: 'get',
    path: `${PROJECT_PATH}/commits/:commitId/files`,
    tag: COMMITS,
    summary: 'What a commit changed, in path order',
    auth: 'key',
    query: pageQuerySchema,
  },
);

/**
 * A folder: a path as uploads check it, with or without its trailing `/`, which it is given. Empty
 * means the whole tree.
 */
export const folderPrefix = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined;
  const folder = normalizePath(raw.endsWith('/') ? raw.slice(0, -1) : raw);
  if (folder instanceof AppError) {
    ctx.issues.push({ code: 'custom', message: folder.message, input: raw });
    return z.NEVER;
  }
  return `${folder.path}/`;
});

export const treeQuerySchema = pageQuerySchema.extend({ branch: branchName.default(MAIN_BRANCH), prefix: folderPrefix.optional() });

/** A live file of a branch's tree. */
export const treeFileSchema = z.object({
  fileId: uuid,
  path: z.string(),
  version: positiveVersion,
  sha256: z.string(),
  size: byteSize,
  /** The commit that last changed the file on the branch's lineage. */
  commitSeq: z.number().int().min(1),
  /** When that commit was made. */
  updatedAt: z.string(),
});
export type TreeFile = z.infer<typeof treeFileSchema>;

/** The live files of a branch in path order (byte order), under a folder or all (docs/api.md, Project tree). */
export const listTree = defineContract(
  'commit',
  'list_tree',
  z.object({ actor: actorSchema, ...treeQuerySchema.shape }),
  z.object({ data: z.array(treeFileSchema), nextCursor: z.string().nullable() }),
  { method: 'get', path: `${PROJECT_PATH}/files`, tag: COMMITS, summary: "A branch's live files (the project tree)", auth: 'key', query: treeQuerySchema },
);

/** A subfolder in a folder listing: `path` (with its trailing `/`) is the `prefix` that lists it. */
export const folderEntrySchema = z.object({
  type: z.literal('folder'),
  name: z.string(),
  path: z.string(),
  /** Live files under it at any depth, and their total size in bytes. */
  fileCount: z.number().int().min(1),
  totalSize: byteSize,
});
export type FolderEntry = z.infer<typeof folderEntrySchema>;

/** A file right in the listed folder: its tree row and its name there. */
export const folderFileSchema = treeFileSchema.extend({ type: z.literal('file'), name: z.string() });
export type FolderFile = z.infer<typeof folderFileSchema>;

export const folderChildSchema = z.discriminatedUnion('type', [folderEntrySchema, folderFileSchema]);
export type FolderChild = z.infer<typeof folderChildSchema>;

/**
 * One level of a branch's tree (docs/api.md, Folders): the folder's subfolders by name, then its
 * files by name (byte order both), a page at a time across the two. The query is the tree's.
 */
export const listFolder = defineContract(
  'commit',
  'list_folder',
  z.object({ actor: actorSchema, ...treeQuerySchema.shape }),
  z.object({ data: z.array(folderChildSchema), nextCursor: z.string().nullable() }),
  {
    method: 'get',
    path: `${PROJECT_PATH}/folders`,
    tag: COMMITS,
    summary: 'One folder of a branch: its subfolders with file counts and sizes, then its files',
    description:
      'The immediate children of `prefix` (the root when omitted): subfolders by name, each with its live files at any depth and their total size, then the files right in it by name; one list paged across both. 404 for a branch, or a folder with no live file, that does not exist.',
    auth: 'key',
    query: treeQuerySchema,
  },
);

/** The branch a project's figures are read for: main when omitted. */
export const statsQuerySchema = z.object({ branch: branchName.default(MAIN_BRANCH) });

export const projectStatsSchema = z.object({
  branch: z.string(),
  /** The branch's live files, and their bytes. */
  fileCount: z.number().int().min(0),
  totalSize: byteSize,
  /** Versions committed in the project, on every branch (deletions are no versions). */
  versionCount: z.number().int().min(0),
  /** The project's last commit number, on any branch; 0 before its first commit. */
  latestSequence: z.number().int().min(0),
});
export type ProjectStats = z.infer<typeof projectStatsSchema>;

export const stats = defineContract('commit', 'project_stats', z.object({ actor: actorSchema, ...statsQuerySchema.shape }), projectStatsSchema, {
  method: 'get',
  path: `${PROJECT_PATH}/stats`,
  tag: COMMITS,
  summary: "A project's size: a branch's live files and bytes, its versions and its latest commit number",
  auth: 'key',
  query: statsQuerySchema,
});

/** Versions a batch of files may be asked about at once, by retention. */
export const MAX_PINNED_FILES = 1000;

/**
 * Which versions of these files something on the commit side still needs: any branch's tip (a
 * deleted file's last version included) and any version a draft stages. Retention never removes them.
 */
export const pinnedVersions = defineContract(
  'commit',
  'pinned_versions',
  z.object({ projectId: uuid, fileIds: uuidList(MAX_PINNED_FILES) }),
  z.object({ versions: z.array(z.object({ fileId: uuid, version: positiveVersion })) }),
);
