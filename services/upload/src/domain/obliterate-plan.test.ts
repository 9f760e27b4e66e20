import { describe, expect, it } from 'vitest';
import { claimsOf, listedVersions, objectsFreed, obliterationIdOf, planDigest, tokenPosition, type PlannedVersion } from './obliterate-plan.ts';

const version = (n: number, storageKey: string, size: number): PlannedVersion => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  version: n,
  size,
  sha256: 'a'.repeat(64),
  storageKey,
  createdAt: '2026-11-30T00:00:00.000Z',
});

describe('an obliteration plan', () => {
  it('digests the same versions alike in any order, and other versions otherwise', () => {
    expect(planDigest(['b', 'a'])).toBe(planDigest(['a', 'b']));
    expect(planDigest(['a', 'b'])).not.toBe(planDigest(['a', 'c']));
    expect(planDigest(['a'])).not.toBe(planDigest([]));
  });

  it('reads back the claims it signs, and nothing that is not an obliteration token', () => {
    const claims = { projectId: 'p', fileId: 'f', version: 0, digest: 'd', expiresAtMs: 5 };
    expect(claimsOf(tokenPosition(claims))).toEqual(claims);
    expect(claimsOf(['plugins', 'org', 'name'])).toBeUndefined();
    expect(claimsOf(['obliterate', 'p', 'f', '0', 'd', 5])).toBeUndefined();
  });

  it('names an obliteration by its claims, as a UUID', () => {
    const claims = { projectId: 'p', fileId: 'f', version: 0, digest: 'd', expiresAtMs: 5 };
    expect(obliterationIdOf(claims)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(obliterationIdOf(claims)).toBe(obliterationIdOf({ ...claims }));
    expect(obliterationIdOf(claims)).not.toBe(obliterationIdOf({ ...claims, expiresAtMs: 6 }));
  });

  it('frees each object once, whatever the number of versions sharing it, and none that something else keeps', () => {
    const versions = [version(1, 'k1', 10), version(2, 'k2', 20), version(3, 'k1', 10), version(4, 'k3', 30)];
    expect(objectsFreed(versions, new Set(['k3']))).toEqual({ freedObjects: 2, freedBytes: 30, keptObjects: 1 });
    expect(objectsFreed([], new Set())).toEqual({ freedObjects: 0, freedBytes: 0, keptObjects: 0 });
  });

  it('lists the newest versions first, at most a thousand, with the totals of all', () => {
    const many = Array.from({ length: 1001 }, (_, i) => version(i + 1, `k${i}`, 1));
    const listed = listedVersions(many);
    expect(listed.versions).toHaveLength(1000);
    expect(listed.versions[0].version).toBe(1001);
    expect(listed).toMatchObject({ versionCount: 1001, versionsTruncated: true, logicalBytes: 1001 });
  });
});
