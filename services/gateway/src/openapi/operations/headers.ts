import { z } from 'zod';
import { idempotencyKey } from '../../http/idempotency-key.ts';

/** X-Idempotency-Key, as http/idempotency-key.ts checks it: a retry with the same key answers with the first result. */
export const idempotencyHeaders = z.object({
  'x-idempotency-key': idempotencyKey
    .optional()
    .meta({ description: 'Makes a retry safe: the same key answers with the first result (docs/api.md, Idempotency).' }),
});
