import { branches, commit } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';

const project = '/api/v1/projects/:projectId';

export const branchOperations: OperationGroup = {
  tag: 'Branches',
  description: 'Branches and merges (docs/api.md, Branches and Merge).',
  operations: [
    { method: 'get', path: `${project}/branches`, summary: 'List branches', auth: 'key', query: commit.pageQuerySchema, reply: branches.list.reply },
    {
      method: 'post',
      path: `${project}/branches`,
      summary: 'Create a branch',
      auth: 'key',
      write: true,
      body: branches.createBodySchema,
      status: 201,
      reply: branches.create.reply,
      errors: [409],
    },
    {
      method: 'delete',
      path: `${project}/branches/:name`,
      summary: 'Delete a branch',
      auth: 'key',
      write: true,
      params: { name: commit.branchName },
      reply: branches.remove.reply,
      errors: [409],
    },
    {
      method: 'post',
      path: `${project}/branches/:name/merge`,
      summary: 'Merge a branch into another',
      auth: 'key',
      write: true,
      params: { name: commit.branchName },
      body: branches.mergeBodySchema,
      status: 201,
      reply: branches.merge.reply,
      errors: [409, 422],
    },
  ],
};
