import type { ReplyOf, identity } from '@lode/contracts';
import type { ApiKeyRow, MembershipRow, OrgRow, ProjectRow, UserRow } from '../repo/rows.ts';

type KeyView = ReplyOf<typeof identity.revokeKey>;

/** Wire shapes of the admin operations (camelCase, ISO timestamps); rows never leave the service raw. */
export const view = {
  org: (r: OrgRow) => ({ id: r.id, name: r.name, slug: r.slug, createdAt: r.created_at.toISOString() }),
  user: (r: UserRow) => ({ id: r.id, name: r.name, avatarUrl: r.avatar_url, email: r.email, createdAt: r.created_at.toISOString() }),
  member: (r: MembershipRow) => ({ orgId: r.org_id, userId: r.user_id, role: r.role, createdAt: r.created_at.toISOString() }),
  project: (r: ProjectRow) => ({
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    slug: r.slug,
    iconUrl: r.icon_url,
    writeRateLimit: r.write_rate_per_second === null || r.write_rate_burst === null ? null : { perSecond: r.write_rate_per_second, burst: r.write_rate_burst },
    createdAt: r.created_at.toISOString(),
    deletedAt: r.deleted_at?.toISOString() ?? null,
    purgeAfter: r.purge_after?.toISOString() ?? null,
    purgedAt: r.purged_at?.toISOString() ?? null,
  }),
  deletion: (r: ProjectRow & { deleted_at: Date; purge_after: Date }) => ({
    projectId: r.id,
    orgId: r.org_id,
    name: r.name,
    deletedAt: r.deleted_at.toISOString(),
    purgeAfter: r.purge_after.toISOString(),
  }),
  key: (r: ApiKeyRow): KeyView => ({
    id: r.id,
    projectId: r.project_id,
    userId: r.user_id,
    hint: `lode_…${r.key_hint}`,
    deviceBound: r.device_id !== null,
    deviceId: r.device_id,
    deviceBoundAt: r.device_bound_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }),
};
