import type { Actor } from '@lode/contracts';
import type { KeyIdentityRow } from '../identity/keys-repo.ts';

/** The caller identity fields of spec 2, flat, as validate-key returns them. */
export function toCallerIdentity(row: KeyIdentityRow) {
  return {
    valid: true as const,
    userId: row.user_id,
    userName: row.user_name,
    userAvatarUrl: row.user_avatar_url,
    projectId: row.project_id,
    projectName: row.project_name,
    projectSlug: row.project_slug,
    projectIconUrl: row.project_icon_url,
    orgId: row.org_id,
    orgName: row.org_name,
    orgSlug: row.org_slug,
  };
}

export function toActor(row: KeyIdentityRow): Actor {
  return {
    projectId: row.project_id,
    orgId: row.org_id,
    userId: row.user_id,
    userName: row.user_name,
    userAvatarUrl: row.user_avatar_url,
    keyId: row.key_id,
    role: row.role ?? 'member',
  };
}
