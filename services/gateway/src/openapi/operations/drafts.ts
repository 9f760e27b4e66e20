import { z } from 'zod';
import { commit, drafts } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';
import { idempotencyHeaders } from './headers.ts';

const draft = '/api/v1/projects/:projectId/drafts';

export const draftOperations: OperationGroup = {
  tag: 'Drafts',
  description: 'Draft commits: stage more than 25,000 file versions over many calls, then commit them as one (docs/api.md, Draft commits). Every call counts against the write rate limit.',
  operations: [
    { method: 'post', path: draft, summary: 'Open a draft', auth: 'key', write: true, body: drafts.createBodySchema, status: 201, reply: drafts.create.reply },
    { method: 'get', path: `${draft}/:draftId`, summary: 'A draft and what it holds', auth: 'key', write: true, reply: drafts.get.reply },
    {
      method: 'post',
      path: `${draft}/:draftId/files`,
      summary: 'Stage 1 to 25,000 file versions',
      auth: 'key',
      write: true,
      body: drafts.stageBodySchema.extend({ fileVersions: z.array(commit.commitEntrySchema).min(1).max(commit.MAX_COMMIT_ENTRIES) }),
      reply: drafts.stage.reply,
      errors: [409, 422],
    },
    {
      method: 'post',
      path: `${draft}/:draftId/commit`,
      summary: 'Commit the draft as one commit',
      auth: 'key',
      write: true,
      headers: idempotencyHeaders,
      status: 201,
      reply: drafts.finalize.reply,
      errors: [409, 422],
    },
    { method: 'delete', path: `${draft}/:draftId`, summary: 'Discard a draft', auth: 'key', write: true, reply: drafts.remove.reply },
  ],
};
