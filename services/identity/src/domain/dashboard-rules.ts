import { errors, type AppError } from '@lode/errors';
import { managesOrg, type identity, type Role } from '@lode/contracts';

/** The dashboard's authorization, as pure rules: the dashboard service asks these before every change. */

/** A member sees and changes their own keys; owners and admins everyone's. */
export function mayHandleKey(viewer: { userId: string; role: Role }, keyOwnerId: string): boolean {
  return managesOrg(viewer.role) || viewer.userId === keyOwnerId;
}

export interface MembershipChange {
  viewerRole: Role;
  /** The member's role now; null when they are not a member yet. */
  currentRole: Role | null;
  /** The role asked for; null to remove the member. */
  nextRole: Role | null;
  /** How many owners the org has now. */
  owners: number;
}

/** Why a membership change is refused, or null when it is allowed. */
export function membershipChangeRefusal(change: MembershipChange): string | null {
  if (!managesOrg(change.viewerRole)) return 'Only owners and admins manage members';
  const touchesOwner = change.currentRole === 'owner' || change.nextRole === 'owner';
  if (touchesOwner && change.viewerRole !== 'owner') return 'Only an owner makes or changes an owner';
  if (change.currentRole === 'owner' && change.nextRole !== 'owner' && change.owners <= 1) return 'An organization keeps at least one owner';
  return null;
}

/**
 * The refusal of a write limit an owner or admin sets for their project above the operator's, or
 * null when it is within it. The operator's limit bounds what the dashboard may set, so a project
 * takes more of the shared capacity only by the operator's decision (the admin API); it is refused
 * rather than lowered to the maximum, so nobody believes their project got what they asked for.
 */
export function writeLimitOverMaximum(limit: identity.WriteRateLimit, maximum: identity.WriteRateLimit): AppError | null {
  const issues = [
    ...(limit.perSecond > maximum.perSecond ? [{ path: 'writeRateLimit.perSecond', message: `at most ${maximum.perSecond}` }] : []),
    ...(limit.burst > maximum.burst ? [{ path: 'writeRateLimit.burst', message: `at most ${maximum.burst}` }] : []),
  ];
  if (issues.length === 0) return null;
  return errors.validation(
    `Invalid body: writeRateLimit: this server allows a project at most ${maximum.perSecond} writes per second in bursts of ${maximum.burst}; its operator can allow more`,
    { issues, maximum },
  );
}
