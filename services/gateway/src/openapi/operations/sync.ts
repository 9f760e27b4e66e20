import { z } from 'zod';
import { byteSize, positiveVersion, sync, uuid } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';
import { boundGroup } from '../bound-operations.ts';

/**
 * A row of the answer. The gateway streams it from the sync service's columns (routes/sync.ts,
 * rowsJson), so no reply schema exists to reference: this is its one description.
 */
const syncRow = z.object({
  path: z.string(),
  status: sync.syncStatusSchema,
  fileId: uuid.nullable(),
  remoteVersion: positiveVersion.nullable(),
  remoteSha256: z.string().nullable(),
  remoteCommitSeq: z.number().int().min(1).nullable(),
  remoteSize: byteSize.nullable(),
});

export const syncOperations: OperationGroup = {
  tag: 'Sync',
  description: "Compare a workspace's files with a branch.",
  operations: [
    {
      method: 'post',
      path: '/api/v1/projects/:projectId/sync',
      summary: 'Compare local files with a branch',
      description:
        'One row per file listed (and, with includeRemoteOnly, per remote file not listed). Up to 10,000 files a request; larger workspaces are sent in the batches of one session.',
      auth: 'key',
      body: sync.syncBodySchema.extend({ files: z.array(sync.localFileSchema).max(sync.MAX_SYNC_BATCH) }),
      reply: z.object({ files: z.array(syncRow), latestCommitSeq: z.number().int().min(0) }),
      errors: [409],
    },
    ...boundGroup('Sync', '').operations,
  ],
};
