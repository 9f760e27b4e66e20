import { z } from 'zod';
import { errors } from '@lode/errors';
import type { BatchLimit } from '@lode/contracts';

/** Validates a request part with zod; the first issues become a 400 naming the offending fields. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 10).map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = issues[0];
  const message = first ? `Invalid ${what}: ${first.path ? `${first.path}: ` : ''}${first.message}` : `Invalid ${what}`;
  throw errors.validation(message, { issues });
}

/**
 * Parses a batch body, counting its entries before validating them one by one: an oversized batch
 * fails fast with 413 batch_too_large instead of a 400 about its 25,001st entry. The count reads
 * the array as it is (zod would copy 25,000 entries to say it is one); anything but an array gets
 * zod's 400, and a field the body leaves out is the schema's to require or not.
 */
export function parseBatch<S extends z.ZodType>(schema: S, body: unknown, limit: BatchLimit): z.output<S> {
  const field: unknown = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[limit.field] : undefined;
  if (field === undefined) return parse(schema, body);
  const entries = Array.isArray(field) ? field : parse(z.object({ [limit.field]: z.array(z.unknown(), `${limit.field} must be an array`) }), body)[limit.field];
  if (entries.length > limit.max) throw errors.batchTooLarge(limit.what, limit.max, limit.hint);
  return parse(schema, body);
}
