import { describe, expect, it } from 'vitest';
import { invitationClosed, invitationRefusal } from './invitation-rules.ts';

describe('invitation rules', () => {
  it('lets owners and admins invite, and only owners invite an owner', () => {
    expect(invitationRefusal('owner', 'owner')).toBeNull();
    expect(invitationRefusal('admin', 'admin')).toBeNull();
    expect(invitationRefusal('admin', 'owner')).toMatch(/Only an owner invites an owner/);
    expect(invitationRefusal('member', 'member')).toMatch(/owners and admins/);
  });

  it('refuses a spent or expired invitation as a conflict that names its state', () => {
    expect(invitationClosed('expired')).toMatchObject({ code: 'conflict', message: expect.stringMatching(/expired/), details: { state: 'expired' } });
    expect(invitationClosed('revoked')).toMatchObject({ code: 'conflict', details: { state: 'revoked' } });
  });
});
