import { describe, expect, it } from 'vitest';
import { forkLineage, forkPoint, holds, MAIN_LINEAGE } from './lineage.ts';

describe('lineage', () => {
  const feature = forkLineage('feature', MAIN_LINEAGE, 10);
  const nested = forkLineage('nested', feature, 20);

  it("holds a branch's own commits and its parents' up to each fork", () => {
    expect(nested).toEqual([
      { branch: 'nested', after: 20, through: null },
      { branch: 'feature', after: 10, through: 20 },
      { branch: 'main', after: 0, through: 10 },
    ]);
    expect(holds(nested, 'main', 10)).toBe(true);
    expect(holds(nested, 'main', 11)).toBe(false);
    expect(holds(nested, 'feature', 20)).toBe(true);
    expect(holds(nested, 'feature', 21)).toBe(false);
    expect(holds(nested, 'nested', 21)).toBe(true);
    expect(holds(nested, 'other', 5)).toBe(false);
  });

  it('drops the parent stretches that end before they begin (a fork before any commit)', () => {
    expect(forkLineage('early', feature, 10)).toEqual([
      { branch: 'early', after: 10, through: null },
      { branch: 'main', after: 0, through: 10 },
    ]);
  });

  it('finds the fork point of a branch and its parent, of siblings, and of a branch and its ancestor', () => {
    expect(forkPoint(feature, MAIN_LINEAGE)).toBe(10);
    expect(forkPoint(MAIN_LINEAGE, feature)).toBe(10);
    expect(forkPoint(nested, feature)).toBe(20);
    expect(forkPoint(nested, MAIN_LINEAGE)).toBe(10);
    const sibling = forkLineage('sibling', MAIN_LINEAGE, 15);
    expect(forkPoint(feature, sibling)).toBe(10);
    expect(forkPoint(forkLineage('cousin', feature, 12), nested)).toBe(12);
  });

  it('does not mistake a reused name for the branch it replaced', () => {
    // feature (after 10) was forked from at 20, then deleted; a new feature starts from main at 30.
    const reused = forkLineage('feature', MAIN_LINEAGE, 30);
    expect(forkPoint(nested, reused)).toBe(10);
    expect(holds(reused, 'feature', 15)).toBe(false);
    expect(holds(nested, 'feature', 15)).toBe(true);
  });

  it('shares nothing when neither has a commit in common', () => {
    expect(forkPoint(forkLineage('a', MAIN_LINEAGE, 0), forkLineage('b', MAIN_LINEAGE, 0))).toBe(0);
  });
});
