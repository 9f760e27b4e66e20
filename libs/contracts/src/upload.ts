import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, byteSize, positiveVersion, sha256Hex, uuid } from './common.ts';
import { MAX_COMMIT_ENTRIES } from './commit.ts';
import { uuidList } from './uuid-list.ts';

/** S3's limit for a single PUT (5 GiB); above it, initiate answers file_too_large (413) unless the entry asks for multipart. */
export const MAX_FILE_SIZE = 5 * 1024 * 1024 * 1024;

const MiB = 1024 * 1024;
/** A multipart upload's parts: every part but the last of partSize, between these sizes, at most MAX_PARTS of them. */
export const MIN_PART_SIZE = 8 * MiB;
export const MAX_PART_SIZE = 512 * MiB;
export const MAX_PARTS = 10_000;
/** The largest file a multipart upload may declare: its most parts of the largest size (just under S3's 5 TiB object limit). */
export const MAX_MULTIPART_FILE_SIZE = MAX_PARTS * MAX_PART_SIZE;
export const MAX_INITIATE_BATCH = 1000;

const UPLOAD_PATH = '/api/v1/projects/:projectId/files/upload';
const UPLOADS = 'Uploads';

/**
 * Confirm may read the object once to check its SHA-256 (S3 drivers): allow 30 s plus a second per
 * 10 MB, far below what an idle store reads, since a store serving other work reads far slower; a
 * small file still fails fast. A confirm that outlasts it goes on in the upload service, and the
 * client's retry joins that read or finds the version recorded.
 */
export function confirmTimeoutMs(size: number): number {
  return 30_000 + Math.ceil(size / 10_000_000) * 1000;
}

/** The size an entry declares, for the batch's deadline; an entry without a sane one fails on its own upstream. */
function declaredSize(entry: unknown): number {
  const size: unknown = typeof entry === 'object' && entry !== null ? (entry as { size?: unknown }).size : undefined;
  return typeof size === 'number' && size > 0 && size <= MAX_MULTIPART_FILE_SIZE ? size : 0;
}

/**
 * A confirm's allowance for all the batch's bytes, plus 50 ms an entry: on S3 each object is read
 * back (a request each, a few at a time), so on a loaded host a batch of small files can outlast the
 * allowance of its bytes alone.
 */
function confirmBatchTimeoutMs(entries: readonly unknown[]): number {
  return confirmTimeoutMs(entries.reduce<number>((total, entry) => total + declaredSize(entry), 0)) + entries.length * 50;
}

export const base64Md5 = z.string().regex(/^[A-Za-z0-9+/]{22}==$/, 'must be the base64 encoding of a 16-byte MD5 digest');

/**
 * How a client asks to upload a file in parts: the size of every part but the last, and each part's
 * size and MD5 in order (each part's URL signs its length and MD5, as a single PUT's does). Whether
 * the sizes add up is the domain's check, for a clear message.
 */
export const multipartRequestSchema = z.object({
  partSize: z.number().int().min(MIN_PART_SIZE).max(MAX_PART_SIZE),
  parts: z
    .array(z.object({ size: z.number().int().min(1).max(MAX_PART_SIZE), contentMd5: base64Md5 }))
    .min(1)
    .max(MAX_PARTS),
});
export type MultipartRequest = z.infer<typeof multipartRequestSchema>;

/**
 * One file to upload, as a client describes it. Size is checked by the domain, for 413. A multipart
 * entry needs no MD5 of the whole file: no URL signs it.
 */
export const initiateFileSchema = z
  .object({
    path: z.string(),
    sha256: sha256Hex,
    size: byteSize,
    contentMd5: base64Md5.optional(),
    multipart: multipartRequestSchema.optional(),
  })
  .refine((f) => f.contentMd5 !== undefined || f.multipart !== undefined, { message: 'is required', path: ['contentMd5'] });
export type InitiateFile = z.infer<typeof initiateFileSchema>;

/**
 * What the upload's PUT must send verbatim: its signature covers them. Content-Type comes with S3
 * storage, which keeps an object's type and serves it: it is signed so that no uploader chooses it.
 */
export const requiredHeadersSchema = z.object({
  'Content-Length': z.string(),
  'Content-MD5': z.string(),
  'Content-Type': z.literal('application/octet-stream').optional(),
});
export type RequiredHeaders = z.infer<typeof requiredHeadersSchema>;

export const uploadFormSchema = z.object({
  path: z.string(),
  fileId: uuid,
  version: positiveVersion,
  storageKey: z.string(),
  uploadUrl: z.string(),
  requiredHeaders: requiredHeadersSchema,
});
/** A part the store already holds: its number, size and the store's ETag (its MD5, hex, quoted). */
export const storedPartSchema = z.object({ partNumber: z.number().int().min(1), size: byteSize, etag: z.string() });
export type StoredPart = z.infer<typeof storedPartSchema>;
/** A part to PUT: its presigned URL and the headers it signs (Content-Length and Content-MD5). */
export const partFormSchema = z.object({ partNumber: z.number().int().min(1), uploadUrl: z.string(), requiredHeaders: requiredHeadersSchema });
export type PartForm = z.infer<typeof partFormSchema>;
/**
 * A multipart upload: the parts still to PUT with their URLs, and the parts the store already holds
 * (empty for a fresh upload; a resumed one's parts that need no second PUT).
 */
export const multipartUploadSchema = z.object({
  uploadId: z.string(),
  partSize: z.number().int(),
  parts: z.array(partFormSchema),
  uploaded: z.array(storedPartSchema),
});
export type MultipartUpload = z.infer<typeof multipartUploadSchema>;
export const multipartFormSchema = z.object({
  path: z.string(),
  fileId: uuid,
  version: positiveVersion,
  storageKey: z.string(),
  multipart: multipartUploadSchema,
});
export type MultipartForm = z.infer<typeof multipartFormSchema>;
export const dedupFormSchema = z.object({
  path: z.string(),
  fileId: uuid,
  version: positiveVersion,
  dedup: z.literal(true),
});
export type UploadForm = z.infer<typeof uploadFormSchema>;
export type DedupForm = z.infer<typeof dedupFormSchema>;
export const errorFormSchema = z.object({ path: z.string(), error: z.string(), code: z.string() });
export const initiateResultSchema = z.union([multipartFormSchema, uploadFormSchema, dedupFormSchema, errorFormSchema]);
export type InitiateResult = z.infer<typeof initiateResultSchema>;

export const initiate = defineContract(
  'upload',
  'initiate',
  z.object({ actor: actorSchema, file: initiateFileSchema }),
  z.union([multipartFormSchema, uploadFormSchema, dedupFormSchema]),
  {
    method: 'post',
    path: `${UPLOAD_PATH}/initiate`,
    tag: UPLOADS,
    summary: 'Reserve a version of one file and get its upload URL',
    auth: 'key',
    write: true,
    body: initiateFileSchema,
    errors: [409],
    request: ({ actor, body }) => ({ actor, file: body }),
  },
);

/**
 * Entries travel unvalidated so that one bad entry becomes an error form instead of failing the batch
 * (entries are isolated); the upload domain validates each entry on its own.
 */
export const initiateBatch = defineContract(
  'upload',
  'initiate_batch',
  z.object({ actor: actorSchema, files: z.array(z.unknown()).min(1).max(MAX_INITIATE_BATCH) }),
  z.object({ results: z.array(initiateResultSchema) }),
  {
    method: 'post',
    path: `${UPLOAD_PATH}/initiate-batch`,
    tag: UPLOADS,
    summary: 'Reserve versions of 1 to 1,000 files',
    description: 'One result per entry, in order: an upload form, a dedup form, or an error form; a failing entry never fails the others.',
    auth: 'key',
    write: true,
    body: z.object({ files: z.array(initiateFileSchema).min(1).max(MAX_INITIATE_BATCH) }),
    batch: { field: 'files', max: MAX_INITIATE_BATCH, what: 'files', entriesUpstream: true },
  },
);

export const confirmBodySchema = z
  .object({
    fileId: uuid,
    version: positiveVersion,
    storageKey: z.string().min(1).optional(),
    dedup: z.boolean().optional(),
    sha256: sha256Hex,
    // No upload is larger (initiate refuses it), so a larger size can never be confirmed.
    size: byteSize.max(MAX_MULTIPART_FILE_SIZE, `must be at most ${MAX_MULTIPART_FILE_SIZE}`),
  })
  .refine((b) => (b.dedup === true) !== (b.storageKey !== undefined), {
    message: 'send either storageKey (uploaded file) or dedup: true (deduplicated file), not both',
    path: ['storageKey'],
  });

export const confirm = defineContract(
  'upload',
  'confirm',
  z.object({ actor: actorSchema, upload: confirmBodySchema }),
  z.object({ confirmed: z.literal(true), version: positiveVersion }),
  {
    method: 'post',
    path: `${UPLOAD_PATH}/confirm`,
    tag: UPLOADS,
    summary: 'Record an uploaded (or deduplicated) version',
    description: 'Checks the stored object (size and SHA-256). A repeated confirm answers as the first did.',
    auth: 'key',
    write: true,
    body: confirmBodySchema,
    errors: [409, 422],
    request: ({ actor, body }) => ({ actor, upload: body }),
    timeoutMs: ({ upload }) => confirmTimeoutMs(upload.size),
  },
);

/**
 * Where an open multipart upload stands: the parts the store holds and fresh URLs for the rest, for a
 * client resuming after a crash or a lost connection. Only while its reservation is open.
 */
export const uploadParts = defineContract(
  'upload',
  'upload_parts',
  z.object({ actor: actorSchema, fileId: uuid, version: positiveVersion }),
  multipartFormSchema,
  {
    method: 'get',
    path: `${UPLOAD_PATH}/:fileId/:version/parts`,
    tag: UPLOADS,
    summary: 'Resume a multipart upload: the parts stored and URLs for the rest',
    auth: 'key',
    params: { version: z.coerce.number().pipe(positiveVersion) },
    notFound: { fileId: 'Upload reservation' },
    request: ({ actor, params }) => ({ actor, fileId: params.fileId, version: params.version }),
  },
);

export const MAX_CONFIRM_BATCH = 1000;

export const confirmedFormSchema = z.object({ fileId: uuid, version: positiveVersion, confirmed: z.literal(true) });
/**
 * A confirm-batch entry that failed, with the single confirm's code. fileId and version echo the
 * entry (null where it did not carry a usable one); versionConflict is the single confirm's 409 flag.
 */
export const confirmErrorFormSchema = z.object({
  fileId: z.string().nullable(),
  version: z.number().nullable(),
  error: z.string(),
  code: z.string(),
  versionConflict: z.literal(true).optional(),
});
export const confirmResultSchema = z.union([confirmedFormSchema, confirmErrorFormSchema]);
export type ConfirmResult = z.infer<typeof confirmResultSchema>;

/**
 * Confirms 1 to 1,000 uploads with every check of the single confirm; like initiateBatch, entries
 * travel unvalidated so that a bad one becomes its own error form instead of failing the batch.
 */
export const confirmBatch = defineContract(
  'upload',
  'confirm_batch',
  z.object({ actor: actorSchema, files: z.array(z.unknown()).min(1).max(MAX_CONFIRM_BATCH) }),
  z.object({ results: z.array(confirmResultSchema) }),
  {
    method: 'post',
    path: `${UPLOAD_PATH}/confirm-batch`,
    tag: UPLOADS,
    summary: 'Record 1 to 1,000 uploaded versions',
    description:
      'Every check of the single confirm, per entry; one result per entry in order, confirmed or `{ fileId, version, error, code }` with the single confirm code. One write-rate token per call.',
    auth: 'key',
    write: true,
    body: z.object({ files: z.array(confirmBodySchema).min(1).max(MAX_CONFIRM_BATCH) }),
    batch: { field: 'files', max: MAX_CONFIRM_BATCH, what: 'files', entriesUpstream: true },
    timeoutMs: ({ files }) => confirmBatchTimeoutMs(files),
  },
);

/**
 * What other services need to know about files and confirmed versions, for many at once: the commit
 * service resolves a whole commit in one call. The reply is columnar and aligned with the request:
 * `paths[i]` answers `fileIds[i]` and every `versions` column's entry i answers `versions[i]` of that
 * file, so a 25,000-entry reply repeats no field names and no ids, and validates as flat arrays. A null
 * path is a file not in the project; a null version id is a version not confirmed (or none asked).
 * The caller decides what that means.
 */
export const resolveVersions = defineContract(
  'upload',
  'resolve_versions',
  z
    .object({
      projectId: uuid,
      fileIds: uuidList(MAX_COMMIT_ENTRIES),
      /** The version of each file to resolve, or null; absent when only paths are wanted. */
      versions: z.array(positiveVersion.nullable()).optional(),
    })
    .refine((r) => r.versions === undefined || r.versions.length === r.fileIds.length, { message: 'must have one entry per file id', path: ['versions'] }),
  z.object({
    paths: z.array(z.string().nullable()),
    /** One entry per requested version; empty when no versions were asked. */
    versions: z.object({
      ids: z.array(z.string().nullable()),
      sha256s: z.array(z.string().nullable()),
      sizes: z.array(byteSize.nullable()),
      storageKeys: z.array(z.string().nullable()),
      uploaderIds: z.array(z.string().nullable()),
      uploaderNames: z.array(z.string().nullable()),
      createdAts: z.array(z.string().nullable()),
    }),
  }),
);
export type ResolveReply = z.infer<typeof resolveVersions.reply>;

/** A confirmed version as the upload service describes it. */
export interface ResolvedVersion {
  id: string;
  fileId: string;
  version: number;
  sha256: string;
  size: number;
  storageKey: string;
  uploaderId: string;
  uploaderName: string;
  createdAt: string;
}

/**
 * The reply as rows, for callers that look files and versions up by id: the files found (with their
 * paths) and the versions confirmed, in request order.
 */
export function resolvedRows(
  request: { fileIds: readonly string[]; versions?: readonly (number | null)[] | undefined },
  reply: ResolveReply,
): { files: { fileId: string; path: string }[]; versions: ResolvedVersion[] } {
  const v = reply.versions;
  const files = request.fileIds.flatMap((fileId, i) => {
    const path = reply.paths[i];
    return path === null || path === undefined ? [] : [{ fileId, path }];
  });
  const versions = (request.versions ?? []).flatMap((version, i): ResolvedVersion[] => {
    const id = v.ids[i];
    if (version === null || id === null || id === undefined) return [];
    return [
      {
        id,
        fileId: request.fileIds[i],
        version,
        sha256: v.sha256s[i] ?? '',
        size: v.sizes[i] ?? 0,
        storageKey: v.storageKeys[i] ?? '',
        uploaderId: v.uploaderIds[i] ?? '',
        uploaderName: v.uploaderNames[i] ?? '',
        createdAt: v.createdAts[i] ?? '',
      },
    ];
  });
  return { files, versions };
}

/** Why the upload service cannot make a restore version of a file (a restore's `skipped`). */
export const unrestorableSchema = z.enum(['not_found', 'version_not_found', 'blob_missing']);
export type UnrestorableReason = z.infer<typeof unrestorableSchema>;

/**
 * Makes, for each target, a NEW version of the file (its tip + 1, origin `restore`) that points at the
 * target version's stored object: no bytes are copied. The versions stay invisible until a commit
 * references them. Idempotent per (restoreId, file): a retry answers with the versions the first
 * attempt made instead of making more. A file of another project is `not_found`, exactly like a file
 * that does not exist.
 */
export const prepareRestore = defineContract(
  'upload',
  'prepare_restore',
  z.object({
    actor: actorSchema,
    restoreId: uuid,
    targets: z
      .array(z.object({ fileId: uuid, toVersion: positiveVersion }))
      .min(1)
      .max(MAX_COMMIT_ENTRIES),
  }),
  z.object({
    created: z.array(z.object({ fileId: uuid, toVersion: positiveVersion, version: positiveVersion })),
    skipped: z.array(z.object({ fileId: uuid, toVersion: positiveVersion, reason: unrestorableSchema })),
  }),
);

/**
 * The files of these paths, made where a path has none yet (a file with no version), for callers
 * that name files by path: a Git LFS lock is taken on a path before anything was pushed to it. A
 * path differing only in case from an existing one is that file. Answers in request order; an
 * invalid path fails the call.
 */
export const ensureFiles = defineContract(
  'upload',
  'ensure_files',
  z.object({ projectId: uuid, paths: z.array(z.string()).min(1).max(MAX_INITIATE_BATCH) }),
  z.object({ files: z.array(z.object({ fileId: uuid, path: z.string() })) }),
);
