import type { Request } from 'express';
import { z } from 'zod';
import { parse } from './parse.ts';

/** Printable ASCII, as Stripe and the IETF Idempotency-Key draft use; long enough for a UUID or a hash. */
export const idempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces');

/** The request's X-Idempotency-Key (docs/api.md, Idempotency), if it sent one; a malformed one is 400. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const header = req.get('X-Idempotency-Key');
  return header === undefined ? undefined : parse(idempotencyKey, header, 'X-Idempotency-Key header');
}
