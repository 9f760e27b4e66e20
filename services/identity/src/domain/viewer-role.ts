import { errors } from '@lode/errors';
import type { Queryable } from '@lode/db';
import type { Role } from '@lode/contracts';
import type { MembershipsRepository } from '../repo/memberships-repo.ts';

/** The viewer's role in the org; an org they are not in is unknown to them (404, its existence not told). */
export async function viewerRoleIn(members: MembershipsRepository, db: Queryable, orgId: string, viewerId: string): Promise<Role> {
  const membership = await members.find(db, orgId, viewerId);
  if (!membership) throw errors.notFound('Organization');
  return membership.role;
}
