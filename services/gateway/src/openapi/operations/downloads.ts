import { z } from 'zod';
import { download, positiveVersion, uuid } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';

/**
 * An entry as the commit service reads it (services/commit/src/domain/download-entries.ts, a plain
 * loop rather than a schema, for speed): a file by id, by path, or both, and optionally a version.
 */
const wantedFile = z.object({ fileId: uuid.optional(), path: z.string().optional(), version: positiveVersion.optional() });

export const downloadOperations: OperationGroup = {
  tag: 'Downloads',
  description: 'Presigned download URLs for many files at once (docs/api.md, Batch download URLs).',
  operations: [
    {
      method: 'post',
      path: '/api/v1/projects/:projectId/files/download-urls',
      summary: 'Download URLs for 1 to 1,000 files of a branch',
      description: 'Each entry names a file by `fileId` or `path`, optionally a `version`; one result per entry, in order.',
      auth: 'key',
      body: download.urlsBodySchema.extend({ files: z.array(wantedFile).min(1).max(download.MAX_DOWNLOAD_ENTRIES) }),
      reply: download.urls.reply,
    },
  ],
};
