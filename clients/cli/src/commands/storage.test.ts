import { describe, expect, it } from 'vitest';
import { LodeApiError, type FileVersion, type Obliteration, type Usage } from '@lode/sdk';
import type { CliError } from '../failure.ts';
import { percentUsed } from '../output.ts';
import { versionLine } from './history.ts';
import { explainRefusal, extensionTable, planLines, usageLines } from './storage.ts';

const plan: Obliteration = {
  dryRun: true,
  obliterationId: 'o',
  fileId: 'f',
  path: 'Secrets/keys.bin',
  versions: [
    { version: 3, size: 300, sha256: 'c'.repeat(64), createdAt: '2026-11-29T08:00:00.000Z' },
    { version: 2, size: 500, sha256: 'b'.repeat(64), createdAt: '2026-11-28T08:00:00.000Z' },
  ],
  versionCount: 3,
  versionsTruncated: true,
  logicalBytes: 800,
  freedObjects: 2,
  freedBytes: 400,
  keptObjects: 1,
  confirmToken: 't',
  expiresAt: '2026-11-29T09:15:00.000Z',
  obliteratedAt: null,
};

describe('an obliteration plan', () => {
  it('lists the versions, what is freed and kept, and how to confirm', () => {
    expect(planLines(plan)).toEqual([
      'Would obliterate 3 versions of Secrets/keys.bin (800 B):',
      `  v3  2026-11-29T08:00:00.000Z  300 B  ${'c'.repeat(12)}`,
      `  v2  2026-11-28T08:00:00.000Z  500 B  ${'b'.repeat(12)}`,
      '  … and 1 more',
      'Storage to free: 400 B in 2 objects, deleted by the collector after its grace; 1 object kept (shared with other versions, or Git LFS).',
      'Nothing was removed. Confirm before 2026-11-29T09:15:00.000Z: lode obliterate Secrets/keys.bin --yes',
    ]);
  });

  it('says what was done once run, and that nothing is left to remove when so', () => {
    const done = planLines({ ...plan, dryRun: false, confirmToken: null, expiresAt: null, obliteratedAt: '2026-11-29T08:30:00.000Z' });
    expect(done[0]).toBe('Obliterated 3 versions of Secrets/keys.bin (800 B) at 2026-11-29T08:30:00.000Z:');
    expect(done.at(-1)).toMatch(/^Storage freed: /);
    expect(planLines({ ...plan, versions: [], versionCount: 0, confirmToken: null })).toEqual(['Nothing to obliterate: Secrets/keys.bin has no live version.']);
  });
});

describe('usage', () => {
  const usage: Usage = {
    projectId: 'p',
    logicalBytes: 3500,
    storedBytes: 2900,
    versions: 7,
    objects: 6,
    quota: { bytes: 4000, source: 'operator' },
    collectable: { objects: 1, bytes: 100 },
    history: [],
  };

  it('sets logical against stored bytes, with the quota’s percent used and what the collector will free', () => {
    expect(usageLines(usage)).toEqual([
      'Storage of project p',
      "  logical      3.4 KiB in 7 versions (every version's size)",
      '  stored       2.8 KiB in 6 objects (content kept once, deduplicated)',
      '  quota        2.8 KiB of 3.9 KiB (72.5 % used, operator quota)',
      "  collectable  100 B in 1 object (obliterated, deleted after the collector's grace)",
    ]);
    expect(usageLines({ ...usage, quota: null })[3]).toBe('  quota        none');
  });

  it('tables extensions in aligned columns, naming files without one', () => {
    const row = { files: 2, versions: 3, logicalBytes: 2048, storedBytes: 1024, objects: 1 };
    expect(
      extensionTable([
        { extension: 'umap', ...row },
        { extension: '', ...row, files: 10 },
      ]),
    ).toEqual([
      'By extension:',
      '  extension  files  versions  logical   stored',
      '  .umap          2         3  2.0 KiB  1.0 KiB',
      '  (none)        10         3  2.0 KiB  1.0 KiB',
    ]);
  });

  it('percent used has one decimal, and a zero quota is full', () => {
    expect(percentUsed(1, 3)).toBe('33.3');
    expect(percentUsed(0, 0)).toBe('100.0');
  });
});

describe('a version in lode history', () => {
  const version = {
    id: 'v',
    version: 2,
    size: 10,
    sha256: 'd'.repeat(64),
    uploaderId: 'u',
    uploaderName: 'Ada',
    commitId: 'c',
    downloadUrl: null,
    createdAt: '2026-11-28T08:00:00.000Z',
    purged: { at: '2026-11-29T08:00:00.000Z', by: { userId: 'o', userName: 'Olu' }, reason: 'obliterate' },
  } as FileVersion;

  it('reads as removed, with who removed it, when and why', () => {
    expect(versionLine(version)).toBe(`  v2  2026-11-28T08:00:00.000Z  Ada  10 B  ${'d'.repeat(12)}  [removed 2026-11-29T08:00:00.000Z by Olu: obliterate]`);
    expect(versionLine({ ...version, purged: null })).toBe(`  v2  2026-11-28T08:00:00.000Z  Ada  10 B  ${'d'.repeat(12)}`);
  });
});

describe('a refused obliteration', () => {
  const refusal = (status: number, code: string, body: Record<string, unknown> = {}) => new LodeApiError(status, { code, message: 'refused', ...body }, null);
  const explained = (error: unknown): CliError => {
    try {
      explainRefusal('Secrets/keys.bin')(error);
    } catch (thrown) {
      return thrown as CliError;
    }
    throw new Error('not thrown');
  };

  it('tells a changed plan and an expired token apart, exit 3, and says to run it again', () => {
    const changed = explained(refusal(409, 'conflict', { reason: 'plan_changed' }));
    expect(changed).toMatchObject({ exitCode: 3, code: 'conflict', details: expect.objectContaining({ reason: 'plan_changed' }) });
    expect(changed.message).toMatch(/versions changed since the dry run.*lode obliterate Secrets\/keys\.bin` again/);
    expect(explained(refusal(409, 'conflict', { reason: 'expired' })).message).toMatch(/confirmation expired/);
  });

  it("names who may obliterate when the key's role may not", () => {
    expect(explained(refusal(403, 'forbidden'))).toMatchObject({ exitCode: 1, code: 'forbidden', message: expect.stringMatching(/owners and admins/) });
  });
});
