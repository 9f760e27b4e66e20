import { z } from 'zod';
import { defineContract } from './contract.ts';
import { actorSchema, byteSize, positiveVersion, uuid } from './common.ts';
import { branchName, PROJECT_PATH } from './commit.ts';

/** Entries per request, as for initiate-batch. */
export const MAX_DOWNLOAD_ENTRIES = 1000;

/**
 * The body as the gateway checks it. Entries are checked one by one by the commit service, so that
 * a malformed entry is answered in its own result instead of failing the request (docs/api.md).
 */
export const urlsBodySchema = z.object({
  files: z.array(z.unknown(), 'files must be an array').min(1, 'must list 1 to 1,000 entries'),
  branch: branchName.optional(),
});

/**
 * An entry as the commit service reads it (services/commit/src/domain/download-entries.ts, a plain
 * loop rather than a schema, for speed): a file by id, by path, or both, and optionally a version.
 */
const wantedFile = z.object({ fileId: uuid.optional(), path: z.string().optional(), version: positiveVersion.optional() });

export const downloadFormSchema = z.object({
  fileId: z.string(),
  path: z.string(),
  version: positiveVersion,
  sha256: z.string(),
  size: byteSize,
  downloadUrl: z.string(),
  expiresAt: z.string(),
});
export type DownloadForm = z.infer<typeof downloadFormSchema>;

export const downloadFailureCodes = ['validation_failed', 'not_found', 'version_not_found', 'deleted', 'version_purged'] as const;
export type DownloadFailureCode = (typeof downloadFailureCodes)[number];

/** An entry that got no URL: it names the file as far as the request named it (or the branch holds it). */
export const downloadErrorSchema = z.object({
  fileId: z.string().optional(),
  path: z.string().optional(),
  /** The version that was asked for, or the tip, when it was obliterated (`version_purged`). */
  version: positiveVersion.optional(),
  /** When it was obliterated (`version_purged`). */
  purgedAt: z.string().optional(),
  error: z.string(),
  code: z.enum(downloadFailureCodes),
});
export type DownloadError = z.infer<typeof downloadErrorSchema>;

export const downloadResultSchema = z.union([downloadFormSchema, downloadErrorSchema]);
export type DownloadResult = z.infer<typeof downloadResultSchema>;

/**
 * Presigned download URLs for up to 1,000 files of a branch (docs/api.md, Batch download URLs),
 * answered by the commit service, which holds the committed trees. (zod checks a 1,000-result reply
 * quickly enough that no loop-checked column form is needed.)
 */
export const urls = defineContract(
  'commit',
  'download_urls',
  z.object({ actor: actorSchema, branch: branchName.optional(), files: z.array(z.unknown()).min(1).max(MAX_DOWNLOAD_ENTRIES) }),
  z.object({ results: z.array(downloadResultSchema) }),
  {
    method: 'post',
    path: `${PROJECT_PATH}/files/download-urls`,
    tag: 'Downloads',
    summary: 'Download URLs for 1 to 1,000 files of a branch',
    description: 'Each entry names a file by `fileId` or `path`, optionally a `version`; one result per entry, in order.',
    auth: 'key',
    body: urlsBodySchema,
    documentedBody: urlsBodySchema.extend({ files: z.array(wantedFile).min(1).max(MAX_DOWNLOAD_ENTRIES) }),
    batch: { field: 'files', max: MAX_DOWNLOAD_ENTRIES, what: 'files' },
  },
);
