import { describe, expect, it } from 'vitest';
import { mayHandleKey, membershipChangeRefusal } from './dashboard-rules.ts';

describe('dashboard authorization rules', () => {
  it('lets owners and admins handle every key, members only their own', () => {
    expect(mayHandleKey({ userId: 'a', role: 'member' }, 'a')).toBe(true);
    expect(mayHandleKey({ userId: 'a', role: 'member' }, 'b')).toBe(false);
    expect(mayHandleKey({ userId: 'a', role: 'admin' }, 'b')).toBe(true);
  });

  it('keeps owners in the hands of owners and never leaves an org without one', () => {
    const base = { viewerRole: 'owner' as const, currentRole: 'member' as const, nextRole: 'admin' as const, owners: 1 };
    expect(membershipChangeRefusal(base)).toBeNull();
    expect(membershipChangeRefusal({ ...base, viewerRole: 'member' })).toMatch(/owners and admins/);
    expect(membershipChangeRefusal({ ...base, viewerRole: 'admin', nextRole: 'owner' })).toMatch(/owner makes/);
    expect(membershipChangeRefusal({ ...base, viewerRole: 'admin', currentRole: 'owner', nextRole: null, owners: 2 })).toMatch(/owner makes/);
    expect(membershipChangeRefusal({ ...base, currentRole: 'owner', nextRole: 'member', owners: 1 })).toMatch(/at least one owner/);
    expect(membershipChangeRefusal({ ...base, currentRole: 'owner', nextRole: null, owners: 2 })).toBeNull();
    expect(membershipChangeRefusal({ ...base, viewerRole: 'admin', currentRole: null, nextRole: 'member' })).toBeNull();
  });
});
