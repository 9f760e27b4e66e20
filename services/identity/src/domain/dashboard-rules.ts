import { managesOrg, type Role } from '@lode/contracts';

/** Issue 21's authorization, as pure rules: the dashboard service asks these before every change. */

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
