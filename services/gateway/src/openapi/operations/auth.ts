import { z } from 'zod';
import { identity } from '@lode/contracts';
import type { OperationGroup } from '../operation.ts';

/** The caller's identity, flat: the key's identity as validate-key shows it (auth/identity.ts). */
const callerIdentity = identity.keyIdentitySchema
  .pick({
    userId: true,
    userName: true,
    userAvatarUrl: true,
    projectId: true,
    projectName: true,
    projectSlug: true,
    projectIconUrl: true,
    orgId: true,
    orgName: true,
    orgSlug: true,
  })
  .extend({ valid: z.literal(true) });

export const authOperations: OperationGroup = {
  tag: 'Authentication',
  description: 'Who a project key belongs to; the first call from a device binds the key to it.',
  operations: [
    {
      method: 'post',
      path: '/api/v1/auth/validate-key',
      summary: 'Tell who the key belongs to',
      description: 'Failures answer `{ valid: false, code, message }` with 401 or 403.',
      auth: 'key',
      reply: callerIdentity,
    },
  ],
};
