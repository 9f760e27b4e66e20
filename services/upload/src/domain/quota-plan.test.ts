import { describe, expect, it } from 'vitest';
import { effectiveQuota, projectQuotaProblem, quotaRefusals } from './quota-plan.ts';

describe('quota rules', () => {
  it('applies the lower of the two quotas, the operator’s on a tie, and none when neither is set', () => {
    expect(effectiveQuota(undefined)).toBeNull();
    expect(effectiveQuota({ operatorBytes: null, projectBytes: null })).toBeNull();
    expect(effectiveQuota({ operatorBytes: 100, projectBytes: null })).toEqual({ bytes: 100, source: 'operator' });
    expect(effectiveQuota({ operatorBytes: null, projectBytes: 50 })).toEqual({ bytes: 50, source: 'project' });
    expect(effectiveQuota({ operatorBytes: 100, projectBytes: 50 })).toEqual({ bytes: 50, source: 'project' });
    expect(effectiveQuota({ operatorBytes: 40, projectBytes: 50 })).toEqual({ bytes: 40, source: 'operator' });
    expect(effectiveQuota({ operatorBytes: 50, projectBytes: 50 })).toEqual({ bytes: 50, source: 'operator' });
  });

  it('refuses each upload that would pass the quota with what came before it, lets dedups and smaller ones through', () => {
    const quota = { bytes: 100, source: 'operator' as const };
    const refused = quotaRefusals(60, quota, [
      { index: 0, size: 30, dedup: false },
      { index: 1, size: 20, dedup: false },
      { index: 2, size: 500, dedup: true },
      { index: 3, size: 10, dedup: false },
      { index: 4, size: 1, dedup: false },
    ]);
    expect([...refused.keys()]).toEqual([1, 4]);
    expect(refused.get(1)?.toJSON()).toMatchObject({ code: 'quota_exceeded', usedBytes: 90, requestedBytes: 20, quotaBytes: 100, quotaSource: 'operator' });
    expect(quotaRefusals(100, quota, [{ index: 0, size: 0, dedup: false }]).size).toBe(0);
  });

  it('lets owners set their own quota up to the operator’s, never above', () => {
    expect(projectQuotaProblem(null, 10 ** 15)).toBeUndefined();
    expect(projectQuotaProblem(100, 100)).toBeUndefined();
    expect(projectQuotaProblem(100, null)).toBeUndefined();
    expect(projectQuotaProblem(100, 101)?.toJSON()).toMatchObject({ code: 'validation_failed', maximum: 100 });
  });
});
