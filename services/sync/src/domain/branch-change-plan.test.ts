import { describe, expect, it } from 'vitest';
import { planBranchChange } from './branch-change-plan.ts';

describe('planBranchChange', () => {
  it('applies the next change once the commits before it are applied', () => {
    expect(planBranchChange({ appliedSeq: 5, appliedChanges: 2 }, { change: 3, afterSeq: 5 }, false)).toEqual({ action: 'apply', problems: [] });
  });

  it('skips a change applied already (a redelivery)', () => {
    expect(planBranchChange({ appliedSeq: 9, appliedChanges: 3 }, { change: 3, afterSeq: 5 }, false)).toEqual({ action: 'skip', problems: [] });
  });

  it('defers a change whose commits before it are still on their way', () => {
    expect(planBranchChange({ appliedSeq: 4, appliedChanges: 2 }, { change: 3, afterSeq: 5 }, true)).toEqual({ action: 'defer', problems: [] });
  });

  it('defers a change whose predecessor is on its way, and applies it with a problem once that one is known lost', () => {
    expect(planBranchChange({ appliedSeq: 5, appliedChanges: 1 }, { change: 3, afterSeq: 5 }, false)).toEqual({ action: 'defer', problems: [] });
    expect(planBranchChange({ appliedSeq: 5, appliedChanges: 1 }, { change: 3, afterSeq: 5 }, true)).toEqual({
      action: 'apply',
      problems: ['branch change 2 was never received'],
    });
  });

  it('reports a change that comes after commits that should have waited for it', () => {
    expect(planBranchChange({ appliedSeq: 7, appliedChanges: 2 }, { change: 3, afterSeq: 5 }, false).problems).toEqual([
      'branch change 3 came after commit 6, which should have waited for it',
    ]);
  });
});
