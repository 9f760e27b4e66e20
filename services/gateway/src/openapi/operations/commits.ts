import { z } from 'zod';
import { commit } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';
import { idempotencyHeaders } from './headers.ts';

const project = '/api/v1/projects/:projectId';

export const commitOperations: OperationGroup = {
  tag: 'Commits',
  description: 'Make confirmed versions visible, and read the history: versions, the log, a commit, the tree and its folders.',
  operations: [
    {
      method: 'post',
      path: `${project}/commits`,
      summary: 'Commit confirmed versions and deletions',
      auth: 'key',
      write: true,
      headers: idempotencyHeaders,
      body: commit.commitBodySchema.extend({ fileVersions: z.array(commit.commitEntrySchema).min(1).max(commit.MAX_COMMIT_ENTRIES) }),
      status: 201,
      reply: commit.create.reply,
      errors: [409, 422],
    },
    {
      method: 'get',
      path: `${project}/files/:fileId/versions`,
      summary: "A file's committed versions on main, newest first",
      auth: 'key',
      query: commit.pageQuerySchema,
      reply: commit.listVersions.reply,
    },
    { method: 'get', path: `${project}/commits`, summary: "A branch's commit log, newest first", auth: 'key', query: commit.logQuerySchema, reply: commit.listLog.reply },
    { method: 'get', path: `${project}/commits/:commitId`, summary: 'One commit', auth: 'key', reply: commit.getCommit.reply },
    {
      method: 'get',
      path: `${project}/commits/:commitId/files`,
      summary: 'What a commit changed, in path order',
      auth: 'key',
      query: commit.pageQuerySchema,
      reply: commit.listCommitFiles.reply,
    },
    { method: 'get', path: `${project}/files`, summary: "A branch's live files (the project tree)", auth: 'key', query: commit.treeQuerySchema, reply: commit.listTree.reply },
    {
      method: 'get',
      path: `${project}/folders`,
      summary: 'One folder of a branch: its subfolders with file counts and sizes, then its files',
      description:
        'The immediate children of `prefix` (the root when omitted): subfolders by name, each with its live files at any depth and their total size, then the files right in it by name; one list paged across both. 404 for a branch, or a folder with no live file, that does not exist.',
      auth: 'key',
      query: commit.treeQuerySchema,
      reply: commit.listFolder.reply,
    },
  ],
};
