import { z } from 'zod';
import { roleSchema, uuid } from '@lode/contracts';

const slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'lowercase letters, digits and inner hyphens, at most 64 characters');
const name = z.string().trim().min(1).max(200);
// http(s) only: these URLs end up in tools' UIs, where a javascript: URL would be stored XSS.
const imageUrl = z.url({ protocol: /^https?$/ }).max(2048).nullable().optional();

export const createOrgBody = z.object({ name, slug });
export const createUserBody = z.object({ name, avatarUrl: imageUrl });
export const addMemberBody = z.object({ userId: uuid, role: roleSchema });
export const createProjectBody = z.object({
  name,
  slug,
  iconUrl: imageUrl,
  writeRateLimit: z.object({ perSecond: z.number().positive().max(100_000), burst: z.number().int().min(1).max(1_000_000) }).optional(),
});
export const createKeyBody = z.object({ userId: uuid });
export const listQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export type CreateProjectBody = z.infer<typeof createProjectBody>;
