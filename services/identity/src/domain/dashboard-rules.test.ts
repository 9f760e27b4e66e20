import { describe, expect, it } from 'vitest';
import { mayHandleKey, membershipChangeRefusal, writeLimitOverMaximum } from './dashboard-rules.ts';

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

  it("holds a project's write limit to the operator's, refusing rather than lowering it", () => {
    const maximum = { perSecond: 50, burst: 100 };
    expect(writeLimitOverMaximum(maximum, maximum)).toBeNull();
    expect(writeLimitOverMaximum({ perSecond: 0.5, burst: 1 }, maximum)).toBeNull();
    expect(writeLimitOverMaximum({ perSecond: 100_000, burst: 1_000_000 }, maximum)).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('at most 50 writes per second in bursts of 100'),
      details: { maximum, issues: [{ path: 'writeRateLimit.perSecond' }, { path: 'writeRateLimit.burst' }] },
    });
    expect(writeLimitOverMaximum({ perSecond: 50.01, burst: 100 }, maximum)?.details).toMatchObject({
      issues: [{ path: 'writeRateLimit.perSecond', message: 'at most 50' }],
    });
    expect(writeLimitOverMaximum({ perSecond: 50, burst: 101 }, maximum)?.details).toMatchObject({
      issues: [{ path: 'writeRateLimit.burst', message: 'at most 100' }],
    });
  });
});
