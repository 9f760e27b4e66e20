import { errors } from '@lode/errors';
import type { Actor, identity } from '@lode/contracts';

/** The caller's identity fields, flat, as validate-key returns them. */
export function toCallerIdentity(key: identity.KeyIdentity) {
  return {
    valid: true as const,
    userId: key.userId,
    userName: key.userName,
    userAvatarUrl: key.userAvatarUrl,
    projectId: key.projectId,
    projectName: key.projectName,
    projectSlug: key.projectSlug,
    projectIconUrl: key.projectIconUrl,
    orgId: key.orgId,
    orgName: key.orgName,
    orgSlug: key.orgSlug,
  };
}

/**
 * A deleted project is inert until it is purged or brought back: its callers, by key or session,
 * are refused with when it goes for good; once purged, with when it went (nothing brings it back).
 */
export function refuseDeletedProject(key: identity.KeyIdentity): void {
  if (key.projectPurgedAt !== null) throw errors.projectPurged(key.projectPurgedAt);
  if (key.projectPurgeAfter !== null) throw errors.projectDeleted(key.projectPurgeAfter);
}

export function toActor(key: identity.KeyIdentity): Actor {
  return {
    projectId: key.projectId,
    orgId: key.orgId,
    userId: key.userId,
    userName: key.userName,
    userAvatarUrl: key.userAvatarUrl,
    keyId: key.keyId,
    role: key.role ?? 'member',
  };
}
