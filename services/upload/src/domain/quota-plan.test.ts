import { describe, expect, it } from 'vitest';
import { effectiveOrgQuota, effectiveQuota, ownQuotaProblem, quotaRefusals } from './quota-plan.ts';

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
    const refused = quotaRefusals(
      [{ usedBytes: 60, quota }],
      [
        { index: 0, size: 30, dedup: false },
        { index: 1, size: 20, dedup: false },
        { index: 2, size: 500, dedup: true },
        { index: 3, size: 10, dedup: false },
        { index: 4, size: 1, dedup: false },
      ],
    );
    expect([...refused.keys()]).toEqual([1, 4]);
    expect(refused.get(1)?.toJSON()).toMatchObject({ code: 'quota_exceeded', usedBytes: 90, requestedBytes: 20, quotaBytes: 100, quotaSource: 'operator' });
    expect(quotaRefusals([{ usedBytes: 100, quota }], [{ index: 0, size: 0, dedup: false }]).size).toBe(0);
  });

  it('holds each upload to every quota at once, naming the one with the least room left', () => {
    const project = { usedBytes: 10, quota: { bytes: 100, source: 'operator' } };
    const org = { usedBytes: 900, quota: { bytes: 950, source: 'org' } };
    const refused = quotaRefusals(
      [project, org],
      [
        { index: 0, size: 40, dedup: false },
        { index: 1, size: 20, dedup: false },
        { index: 2, size: 10, dedup: false },
      ],
    );
    expect([...refused.keys()]).toEqual([1]);
    expect(refused.get(1)?.toJSON()).toMatchObject({ usedBytes: 940, requestedBytes: 20, quotaBytes: 950, quotaSource: 'org' });
    // Both passed: the project's has less room left (50 against 60), so it is the one named.
    const both = quotaRefusals(
      [
        { ...project, usedBytes: 50 },
        { ...org, usedBytes: 890 },
      ],
      [{ index: 0, size: 70, dedup: false }],
    );
    expect(both.get(0)?.toJSON()).toMatchObject({ usedBytes: 50, quotaBytes: 100, quotaSource: 'operator' });
    expect(quotaRefusals([], [{ index: 0, size: 10 ** 12, dedup: false }]).size).toBe(0);
  });

  it('names an org quota by its own sources, the operator’s on a tie', () => {
    expect(effectiveOrgQuota(undefined)).toBeNull();
    expect(effectiveOrgQuota({ operatorBytes: 100, orgBytes: 100 })).toEqual({ bytes: 100, source: 'org_operator' });
    expect(effectiveOrgQuota({ operatorBytes: 100, orgBytes: 60 })).toEqual({ bytes: 60, source: 'org' });
    expect(ownQuotaProblem('organization', 100, 101)?.toJSON()).toMatchObject({ maximum: 100, message: expect.stringContaining("organization's") });
  });

  it('lets owners set their own quota up to the operator’s, never above', () => {
    expect(ownQuotaProblem('project', null, 10 ** 15)).toBeUndefined();
    expect(ownQuotaProblem('project', 100, 100)).toBeUndefined();
    expect(ownQuotaProblem('project', 100, null)).toBeUndefined();
    expect(ownQuotaProblem('project', 100, 101)?.toJSON()).toMatchObject({ code: 'validation_failed', maximum: 100 });
  });
});
