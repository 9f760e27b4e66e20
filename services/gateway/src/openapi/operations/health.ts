import { z } from 'zod';
import type { OperationGroup } from '../operation.ts';

export const healthOperations: OperationGroup = {
  tag: 'Health',
  description: "The process's health on the API port (docs/api.md, Health); no key needed.",
  beforeBodyGuards: true,
  operations: [
    { method: 'get', path: '/healthz', summary: 'The process runs', auth: 'none', reply: z.object({ status: z.literal('ok') }) },
    {
      method: 'get',
      path: '/readyz',
      summary: 'Every service answers',
      description: 'Answers 503 with the same shape (`not_ready` naming the failing checks, or `stopping`) when the system cannot serve.',
      auth: 'none',
      reply: z.object({ status: z.enum(['ready', 'not_ready', 'stopping']), checks: z.record(z.string(), z.string()).optional() }),
    },
  ],
};
