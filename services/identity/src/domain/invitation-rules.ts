import { errors, type AppError } from '@lode/errors';
import { managesOrg, type Role, type sessions } from '@lode/contracts';

/** An invitation can be accepted for a week: time to see it, and a forgotten one does not stay usable. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

/**
 * Invitations are deleted this long after they expire, spent or not: until then an invitee who tries
 * a spent one is told why rather than that it does not exist.
 */
export const INVITATION_KEEP_MS = 30 * 24 * 3_600_000;

/** Why this viewer may not invite someone with this role, or null: as for making a member, only an owner makes an owner. */
export function invitationRefusal(viewerRole: Role, role: Role): string | null {
  if (!managesOrg(viewerRole)) return 'Only owners and admins invite people';
  if (role === 'owner' && viewerRole !== 'owner') return 'Only an owner invites an owner';
  return null;
}

const CLOSED: Record<sessions.InvitationState, string> = {
  pending: 'changed while it was being answered: try again',
  expired: 'has expired: ask the organization for a new one',
  accepted: 'was already accepted',
  declined: 'was declined',
  revoked: 'was revoked by the organization',
};

/** The refusal of an invitation to the viewer that is no longer pending: its state says why. */
export function invitationClosed(state: sessions.InvitationState): AppError {
  return errors.conflict(`This invitation ${CLOSED[state]}`, { state });
}
