import { describe, expect, it } from 'vitest';
import { planPart, type Progress } from './part-plan.ts';

const at = (appliedSeq: number, pending?: [seq: number, part: number]): Progress => ({
  appliedSeq,
  pendingSeq: pending?.[0] ?? null,
  pendingPart: pending?.[1] ?? 0,
  appliedChanges: 0,
});
const part = (sequenceNum: number, p = 1, parts = 1) => ({ sequenceNum, part: p, parts });
/** Earlier events may still come (another replica holds them, a redelivery is due). */
const inFlight = false;
/** Every event stored before this one has been handled: what is missing was lost. */
const settled = true;

describe('planPart', () => {
  it('applies the next single-part commit, the first one of a project included', () => {
    expect(planPart(at(0), part(1), inFlight)).toEqual({ action: 'apply', discardStaged: false, problems: [] });
    expect(planPart(at(4), part(5), inFlight)).toEqual({ action: 'apply', discardStaged: false, problems: [] });
  });

  it('stages the parts of a large commit in order and applies it with its last part', () => {
    expect(planPart(at(4), part(5, 1, 3), inFlight).action).toBe('stage');
    expect(planPart(at(4, [5, 1]), part(5, 2, 3), inFlight).action).toBe('stage');
    expect(planPart(at(4, [5, 2]), part(5, 3, 3), inFlight).action).toBe('apply');
  });

  it('skips a redelivered commit or part without a problem, so applying twice changes nothing', () => {
    const skip = { action: 'skip', discardStaged: false, problems: [] };
    for (const earlier of [inFlight, settled]) {
      expect(planPart(at(5), part(5), earlier)).toEqual(skip);
      expect(planPart(at(5), part(3, 2, 4), earlier)).toEqual(skip);
      expect(planPart(at(4, [5, 2]), part(5, 2, 3), earlier)).toEqual(skip);
      expect(planPart(at(4, [5, 2]), part(5, 1, 3), earlier)).toEqual(skip);
    }
  });

  it('defers a commit or part that came ahead of the next one while earlier events may still come, reporting nothing', () => {
    const defer = { action: 'defer', discardStaged: false, problems: [] };
    expect(planPart(at(2), part(6), inFlight)).toEqual(defer);
    expect(planPart(at(4), part(6), inFlight)).toEqual(defer);
    expect(planPart(at(4), part(5, 2, 3), inFlight)).toEqual(defer);
    expect(planPart(at(4, [5, 1]), part(5, 3, 3), inFlight)).toEqual(defer);
    // The next commit's first part while the last parts of the one in progress are on their way.
    expect(planPart(at(4, [5, 2]), part(6, 1, 2), inFlight)).toEqual(defer);
  });

  it('once every earlier event was handled, applies past lost commits but reports them', () => {
    const plan = planPart(at(2), part(6), settled);
    expect(plan.action).toBe('apply');
    expect(plan.problems).toEqual(['commits 3 to 5 were never received']);
    expect(planPart(at(4), part(6), settled).problems).toEqual(['commit 5 was never received']);
  });

  it('once every earlier event was handled, discards a commit whose last parts were lost when the next commit starts', () => {
    const plan = planPart(at(4, [5, 2]), part(6, 1, 2), settled);
    expect(plan).toEqual({ action: 'stage', discardStaged: true, problems: [expect.stringContaining('commit 5 never received its last parts')] });
    expect(planPart(at(4, [5, 1]), part(8), settled).problems).toEqual([
      'commit 5 never received its last parts; its staged parts are discarded',
      'commits 6 to 7 were never received',
    ]);
  });

  it('once every earlier event was handled, skips a part whose earlier parts were lost', () => {
    const plan = planPart(at(4), part(5, 2, 3), settled);
    expect(plan.action).toBe('skip');
    expect(plan.problems).toHaveLength(1);
    expect(planPart(at(4, [5, 1]), part(5, 3, 3), settled).action).toBe('skip');
  });

  it('defers a commit until the branch changes made before it are applied, whatever else says it may go', () => {
    const after = (changes: number) => ({ ...at(4), appliedChanges: changes });
    const commit = { ...part(5), branchChanges: 2 };
    for (const earlier of [inFlight, settled]) expect(planPart(after(1), commit, earlier)).toEqual({ action: 'defer', discardStaged: false, problems: [] });
    expect(planPart(after(2), commit, inFlight).action).toBe('apply');
    // A redelivery of an applied commit is skipped, and an event of before the count is not held up.
    expect(planPart({ ...at(5), appliedChanges: 0 }, commit, inFlight).action).toBe('skip');
    expect(planPart(after(0), part(5), inFlight).action).toBe('apply');
  });
});
