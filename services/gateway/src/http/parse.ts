import { z } from 'zod';
import { errors } from '@lode/errors';

/** Validates a request part with zod; the first issues become a 400 naming the offending fields. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 10).map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = issues[0];
  const message = first ? `Invalid ${what}: ${first.path ? `${first.path}: ` : ''}${first.message}` : `Invalid ${what}`;
  throw errors.validation(message, { issues });
}

export interface BatchLimit {
  /** The body's array field. */
  field: string;
  max: number;
  /** What the entries are, for the 413 message ("file versions", "files"). */
  what: string;
  hint?: string;
}

/**
 * Parses a batch body, counting its entries before validating them one by one: an oversized batch
 * fails fast with 413 batch_too_large instead of a 400 about its 25,001st entry.
 */
export function parseBatch<S extends z.ZodType>(schema: S, body: unknown, limit: BatchLimit): z.output<S> {
  const shell = parse(z.object({ [limit.field]: z.array(z.unknown(), `${limit.field} must be an array`) }), body);
  const entries = shell[limit.field];
  if (entries.length > limit.max) throw errors.batchTooLarge(limit.what, limit.max, limit.hint);
  return parse(schema, body);
}
