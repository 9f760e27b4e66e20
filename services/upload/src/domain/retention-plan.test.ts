import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retention } from '@lode/contracts';
import { planDigest } from './obliterate-plan.ts';
import { compileGlob, compileRules, isRemoved, PlanTally, policyFor, retentionClaimsOf, retentionTokenPosition, wholePlanDigest } from './retention-plan.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-11-30T00:00:00.000Z');

describe('a retention glob', () => {
  it('matches paths as they collide, ignoring case; ** spans segments, * and ? stay within one', () => {
    const umap = compileGlob('Levels/**/*.umap');
    expect(['levels/a.umap', 'levels/city/night/b.umap', 'LEVELS/X.UMAP'.toLowerCase()].map((p) => umap.test(p))).toEqual([true, true, true]);
    expect(['levels/a.umapx', 'other/levels/a.umap', 'levels.umap'].map((p) => umap.test(p))).toEqual([false, false, false]);
    expect(['a.psd', 'art/a.psd'].map((p) => compileGlob('*.psd').test(p))).toEqual([true, false]);
    expect(['art/a.png', 'art/ab.png'].map((p) => compileGlob('Art/?.png').test(p))).toEqual([true, false]);
    expect(['art/a', 'art/x/y', 'art'].map((p) => compileGlob('Art/**').test(p))).toEqual([true, true, false]);
    expect(compileGlob('**').test('any/path/at/all.bin')).toBe(true);
    // Regular expression characters in a glob are plain characters.
    expect(['a+(b).txt', 'aab.txt'].map((p) => compileGlob('a+(b).txt').test(p))).toEqual([true, false]);
  });

  it('is refused when it is not a relative path of segments (** alone in its segment)', () => {
    expect(['Levels/**/*.umap', '*.psd', '**'].map(retention.globIssue)).toEqual([undefined, undefined, undefined]);
    for (const bad of ['/abs/*.png', 'a//b', 'a/../b', 'a\\b', 'a/**x/b', 'tab\there']) expect(retention.globIssue(bad)).toBeDefined();
  });
});

describe('retention rules', () => {
  const globs = ['**', 'art/**', 'art/*.psd', '*.psd', 'levels/**/*.umap'];
  const paths = ['art/hero.psd', 'art/ui/icon.png', 'hero.psd', 'levels/a/b.umap', 'docs/readme.md'];
  const rule = fc
    .record({
      glob: fc.constantFrom(...globs),
      keepLast: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      keepDays: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    })
    .filter((r) => r.keepLast !== undefined || r.keepDays !== undefined);

  it('remove a version only when every rule matching its path lets it go, and never a path no rule matches', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 4 }),
        fc.constantFrom(...paths),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 8 * DAY_MS }),
        (rules, path, rank, ageMs) => {
          const matching = rules.filter((r) => compileGlob(r.glob).test(path));
          const removedByEach = matching.every(
            (r) => (r.keepLast === undefined || rank > r.keepLast) && (r.keepDays === undefined || ageMs >= r.keepDays * DAY_MS),
          );
          const expected = matching.length > 0 && removedByEach;
          const policy = policyFor(compileRules(rules), path);
          expect(policy !== undefined && isRemoved(policy, rank, NOW - ageMs, NOW)).toBe(expected);
          if (policy) expect(policy.rule).toBe(matching[0].glob);
        },
      ),
    );
  });

  it('keep the newest N and those younger than D days when a rule says both', () => {
    const [policy] = [policyFor(compileRules([{ glob: '**', keepLast: 2, keepDays: 3 }]), 'a.bin')!];
    expect(isRemoved(policy, 2, NOW - 10 * DAY_MS, NOW)).toBe(false);
    expect(isRemoved(policy, 3, NOW - 1 * DAY_MS, NOW)).toBe(false);
    expect(isRemoved(policy, 3, NOW - 4 * DAY_MS, NOW)).toBe(true);
  });
});

describe('a retention plan', () => {
  const v = (n: number, fileId: string, storageKey: string, size: number) => ({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    fileId,
    path: `${fileId}.bin`,
    rule: '**',
    version: n,
    size,
    sha256: 'a'.repeat(64),
    storageKey,
    createdAt: '2026-11-01T00:00:00.000Z',
  });

  it('adds batches up: files, bytes, freed objects, and a digest that changes with any batch', () => {
    const tally = new PlanTally();
    tally.add([v(1, 'f1', 'k1', 10), v(2, 'f1', 'k2', 20)], new Set(['k2']), 1);
    tally.add([], new Set(), 2);
    tally.add([v(3, 'f2', 'k3', 30)], new Set(), 0);
    expect(tally.figures()).toMatchObject({
      versionCount: 3,
      fileCount: 2,
      logicalBytes: 60,
      freedObjects: 2,
      freedBytes: 40,
      keptObjects: 1,
      lockedFiles: 3,
      versionsTruncated: false,
    });
    const other = new PlanTally();
    other.add([v(1, 'f1', 'k1', 10)], new Set(), 0);
    other.add([v(3, 'f2', 'k3', 30)], new Set(), 0);
    expect(other.digest).not.toBe(tally.digest);
    // A run checks the dry run's digest from the batches' digests alone.
    expect(tally.digest).toBe(wholePlanDigest([planDigest([v(1, 'f1', 'k1', 10).id, v(2, 'f1', 'k2', 20).id]), planDigest([v(3, 'f2', 'k3', 30).id])]));
  });

  it('reads back the claims it signs, and nothing that is not a retention token', () => {
    const claims = { projectId: 'p', asOfMs: 1, digest: 'd', expiresAtMs: 2 };
    expect(retentionClaimsOf(retentionTokenPosition(claims))).toEqual(claims);
    expect(retentionClaimsOf(['obliterate', 'p', 1, 'd', 2])).toBeUndefined();
    expect(retentionClaimsOf(['retention', 'p', 'x', 'd', 2])).toBeUndefined();
  });
});
