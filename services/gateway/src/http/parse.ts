import type { z } from 'zod';
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
