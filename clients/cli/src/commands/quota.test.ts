import { describe, expect, it } from 'vitest';
import type { OrgUsage } from '@lode/sdk';
import { orgUsageLines } from './quota.ts';

describe("an org's usage", () => {
  const figures = { logicalBytes: 0, storedBytes: 0, versions: 0, objects: 0 };
  const org: OrgUsage = {
    orgId: 'o',
    logicalBytes: 3000,
    storedBytes: 2048,
    versions: 3,
    objects: 2,
    quota: null,
    operatorBytes: null,
    orgBytes: null,
    projects: [
      {
        projectId: 'a',
        name: 'Old',
        slug: 'old',
        deletedAt: '2026-11-20T08:00:00.000Z',
        purgeAfter: '2026-11-27T08:00:00.000Z',
        ...figures,
        storedBytes: 1024,
      },
      { projectId: 'b', name: 'Game', slug: 'game', deletedAt: null, purgeAfter: null, ...figures, storedBytes: 1024 },
    ],
    history: [],
  };

  it('marks a deleted project, whose storage counts until its purge, with when that is', () => {
    expect(orgUsageLines(org).slice(-3)).toEqual([
      '  project                                                stored  logical  versions',
      '  old (deleted; purged after 2026-11-27T08:00:00.000Z)  1.0 KiB      0 B         0',
      '  game                                                  1.0 KiB      0 B         0',
    ]);
  });
});
