import { z } from 'zod';
import { errors } from '@lode/errors';

/** Lower-cased, as Postgres prints them, so ids compare equal however a client spelled them. */
export const uuid = z.uuid().transform((s) => s.toLowerCase());

/** A user as a record or an event names them: their id, and their name as it was then. */
export const userRefSchema = z.object({ userId: uuid, userName: z.string() });
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
export const sha256Hex = z
  .string()
  .regex(SHA256_HEX, 'must be 64 hexadecimal characters')
  .transform((s) => s.toLowerCase());
/**
 * Versions and sequence numbers are Postgres `integer` columns: a larger value is refused here, as
 * a 400 naming the field, instead of failing in SQL. Sizes are `bigint`, bounded by what a JSON
 * number holds exactly.
 */
export const MAX_INT4 = 2_147_483_647;
export const positiveVersion = z.number().int().min(1).max(MAX_INT4, `must be at most ${MAX_INT4}`);
export const byteSize = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`);
/** positiveVersion's and byteSize's tests without a schema, for loops over many values. */
export const isVersion = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_INT4;
export const isSize = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
export const isoTimestamp = z.string();

export const roles = ['owner', 'admin', 'member'] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

/**
 * An org's owners and admins manage it (force locks, publish plugins, manage webhooks,
 * members, settings and everyone's keys); members do not. Named one by one, so a role added later
 * manages nothing until it is listed here.
 */
export function managesOrg(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * Who is calling, as the gateway established it from the API key. Every project-scoped RPC carries it,
 * so services re-scope every child resource to `projectId` and never trust a project id from a body.
 */
export const actorSchema = z.object({
  projectId: uuid,
  orgId: uuid,
  userId: uuid,
  userName: z.string(),
  userAvatarUrl: z.string().nullable(),
  keyId: uuid,
  role: roleSchema,
});
export type Actor = z.infer<typeof actorSchema>;

/** Values listed more than once, each named once: batches name every file they repeat. */
export function findDuplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) duplicates.add(value);
    seen.add(value);
  }
  return [...duplicates];
}

/** A file named twice in one batch is the client's mistake (400), reported with the repeated ids (the first 100). */
export function assertUniqueFileIds(fileIds: readonly string[], per: string): void {
  const duplicates = findDuplicates(fileIds);
  if (duplicates.length > 0) throw errors.validation(`Each file may appear once per ${per}`, { duplicateFileIds: duplicates.slice(0, 100) });
}
