import { lock } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';

const locks = '/api/v1/projects/:projectId/locks';

export const lockOperations: OperationGroup = {
  tag: 'Locks',
  description: 'Exclusive locks on files while they are edited.',
  operations: [
    { method: 'get', path: locks, summary: 'List active locks', auth: 'key', query: lock.listQuerySchema, reply: lock.list.reply },
    { method: 'post', path: locks, summary: 'Take locks', auth: 'key', write: true, body: lock.acquireBodySchema, reply: lock.acquire.reply },
    { method: 'delete', path: locks, summary: 'Release locks (force: org owners and admins)', auth: 'key', write: true, body: lock.releaseBodySchema, reply: lock.release.reply },
  ],
};
