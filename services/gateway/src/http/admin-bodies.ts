import { z } from 'zod';
import { identity, roleSchema, uuid } from '@lode/contracts';

/**
 * The admin API's bodies and list query as HTTP carries them, refused at the edge with a 400 before
 * any bus call; the field rules are the identity contracts' own.
 */
export const createOrgBody = z.object({ name: identity.displayName, slug: identity.slug });
export const createUserBody = z.object({ name: identity.displayName, avatarUrl: identity.imageUrl.nullable().optional(), email: identity.email.nullable().optional() });
export const setUserEmailBody = z.object({ email: identity.email.nullable() });
export const addMemberBody = z.object({ userId: uuid, role: roleSchema });
export const createProjectBody = z.object({
  name: identity.displayName,
  slug: identity.slug,
  iconUrl: identity.imageUrl.nullable().optional(),
  writeRateLimit: identity.writeRateLimitSchema.optional(),
});
export const createKeyBody = z.object({ userId: uuid });
export const listQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(identity.MAX_ADMIN_PAGE_SIZE).default(50),
});
