import { restore } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';
import { idempotencyHeaders } from './headers.ts';

export const restoreOperations: OperationGroup = {
  tag: 'Restore',
  description: 'Bring files back to earlier versions in one new commit.',
  operations: [
    {
      method: 'post',
      path: '/api/v1/projects/:projectId/restore',
      summary: 'Restore files to earlier versions',
      auth: 'key',
      write: true,
      headers: idempotencyHeaders,
      body: restore.restoreBodySchema,
      reply: restore.create.reply,
      errors: [409, 422],
    },
  ],
};
