import { z } from 'zod';
import { upload } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';

const projectFiles = '/api/v1/projects/:projectId/files/upload';

export const uploadOperations: OperationGroup = {
  tag: 'Uploads',
  description: 'Reserve versions and their presigned PUT URLs, then confirm what was uploaded.',
  operations: [
    {
      method: 'post',
      path: `${projectFiles}/initiate`,
      summary: 'Reserve a version of one file and get its upload URL',
      auth: 'key',
      write: true,
      body: upload.initiateFileSchema,
      reply: upload.initiate.reply,
      errors: [409],
    },
    {
      method: 'post',
      path: `${projectFiles}/initiate-batch`,
      summary: 'Reserve versions of 1 to 1,000 files',
      description: 'One result per entry, in order: an upload form, a dedup form, or an error form; a failing entry never fails the others.',
      auth: 'key',
      write: true,
      body: z.object({ files: z.array(upload.initiateFileSchema).min(1).max(upload.MAX_INITIATE_BATCH) }),
      reply: upload.initiateBatch.reply,
    },
    {
      method: 'post',
      path: `${projectFiles}/confirm`,
      summary: 'Record an uploaded (or deduplicated) version',
      description: 'Checks the stored object (size and SHA-256). A repeated confirm answers as the first did.',
      auth: 'key',
      write: true,
      body: upload.confirmBodySchema,
      reply: upload.confirm.reply,
      errors: [409, 422],
    },
    {
      method: 'post',
      path: `${projectFiles}/confirm-batch`,
      summary: 'Record 1 to 1,000 uploaded versions',
      description:
        'Every check of the single confirm, per entry; one result per entry in order, confirmed or `{ fileId, version, error, code }` with the single confirm code. One write-rate token per call.',
      auth: 'key',
      write: true,
      body: z.object({ files: z.array(upload.confirmBodySchema).min(1).max(upload.MAX_CONFIRM_BATCH) }),
      reply: upload.confirmBatch.reply,
    },
  ],
};
