import { z } from 'zod';
import type { OperationGroup } from '../operation.ts';

export const referenceOperations: OperationGroup = {
  tag: 'Reference',
  description: 'This description itself; browsable at /docs.',
  beforeBodyGuards: true,
  operations: [
    {
      method: 'get',
      path: '/api/v1/openapi.json',
      summary: 'This OpenAPI 3.1 description',
      auth: 'none',
      reply: z.looseObject({ openapi: z.string() }).meta({ description: 'An OpenAPI 3.1 document' }),
    },
  ],
};
