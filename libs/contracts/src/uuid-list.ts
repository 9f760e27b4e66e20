import { z } from 'zod';
import { uuid } from './common.ts';

// The pattern z.uuid() checks (RFC 9562 versions and variant, nil and max), so both accept the same ids.
const UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

/** The same test as `uuid`'s, without a schema: for loops over many ids. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/**
 * A list of at most `max` uuids, lower-cased like `uuid`, that validates 25,000 ids at a fraction of
 * `z.array(uuid)`'s cost: one pattern test per id instead of a schema per element. A list with a bad
 * id is checked again element by element, so its issues name each offending index as `z.array(uuid)`'s do.
 */
export function uuidList(max: number, min?: { count: number; message: string }) {
  const list = z.array(z.string()).max(max);
  return (min ? list.min(min.count, min.message) : list).transform((ids, ctx) => {
    if (ids.every(isUuid)) return ids.map((id) => id.toLowerCase());
    for (const issue of z.array(uuid).safeParse(ids).error?.issues ?? []) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}
