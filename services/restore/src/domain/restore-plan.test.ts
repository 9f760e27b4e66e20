import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { commit, upload } from '@lode/contracts';
import { planRestore, restoreRequestHash, triage } from './restore-plan.ts';

const [a, b, c, d, e] = Array.from({ length: 5 }, () => randomUUID());
const sha = (ch: string) => ch.repeat(64);
const version = (fileId: string, v: number, content: string, size = 10): upload.ResolvedVersion => ({
  id: randomUUID(),
  fileId,
  version: v,
  sha256: sha(content),
  size,
  storageKey: `k/${fileId}/${v}`,
  uploaderId: randomUUID(),
  uploaderName: 'Ada',
  createdAt: new Date().toISOString(),
});
const state = (fileId: string, content: string, deleted = false, size = 10): commit.TreeState => ({ fileId, version: 3, sha256: sha(content), size, deleted });

describe('restore plan', () => {
  const resolved = {
    files: [a, b, c, d].map((fileId) => ({ fileId, path: `${fileId}.bin` })),
    versions: [version(a, 1, 'a'), version(b, 1, 'b'), version(c, 1, 'c'), version(d, 1, 'd', 99)],
  };

  it('skips unknown files, unknown versions, and content main already holds, before anything is made', () => {
    const tree = new Map([state(b, 'b'), state(c, 'c', true), state(d, 'd')].map((s) => [s.fileId, s]));
    const targets = [
      { fileId: a, toVersion: 1 },
      { fileId: b, toVersion: 1 },
      { fileId: c, toVersion: 1 },
      { fileId: d, toVersion: 1 },
      { fileId: e, toVersion: 1 },
    ];
    // b: same bytes as main's; c: deleted on main, so it comes back; d: same hash, other size, so other content.
    expect(Object.fromEntries(triage(targets, resolved, tree))).toEqual({ [b]: 'already_current', [e]: 'not_found' });
    // The upload service answers only the versions that exist.
    const unconfirmed = triage([{ fileId: a, toVersion: 2 }], { ...resolved, versions: [] }, tree);
    expect(Object.fromEntries(unconfirmed)).toEqual({ [a]: 'version_not_found' });
  });

  it('commits every made version in request order: add for a file main lacks or deleted, modify otherwise', () => {
    const tree = new Map([state(a, 'x'), state(c, 'c', true)].map((s) => [s.fileId, s]));
    const targets = [
      { fileId: c, toVersion: 1 },
      { fileId: b, toVersion: 1 },
      { fileId: a, toVersion: 1 },
      { fileId: d, toVersion: 7 },
    ];
    const plan = planRestore(
      targets,
      new Map([
        [b, 'blob_missing'],
        [d, 'version_not_found'],
      ]),
      [
        { fileId: a, version: 4 },
        { fileId: c, version: 5 },
      ],
      tree,
      new Map(),
    );
    expect(plan.commit).toEqual({
      message: 'Restore 2 files',
      fileVersions: [
        { fileId: c, version: 5, action: 'add' },
        { fileId: a, version: 4, action: 'modify' },
      ],
    });
    expect(plan.restored).toEqual([
      { fileId: c, newVersion: 5 },
      { fileId: a, newVersion: 4 },
    ]);
    expect(plan.skipped).toEqual([
      { fileId: b, toVersion: 1, code: 'blob_missing', message: 'The content of version 1 is missing from storage' },
      { fileId: d, toVersion: 7, code: 'version_not_found', message: 'Version 7 of this file does not exist' },
    ]);
  });

  it('names the file and version in the message of a one-file restore', () => {
    const plan = planRestore([{ fileId: a, toVersion: 2 }], new Map(), [{ fileId: a, version: 9 }], new Map(), new Map([[a, 'Levels/a.umap']]));
    expect(plan.commit.message).toBe('Restore Levels/a.umap to version 2');
  });

  it('fingerprints the targets in order', () => {
    const one = [
      { fileId: a, toVersion: 1 },
      { fileId: b, toVersion: 2 },
    ];
    expect(restoreRequestHash(one)).toBe(restoreRequestHash(one.map((t) => ({ ...t }))));
    expect(restoreRequestHash(one)).not.toBe(restoreRequestHash([...one].reverse()));
    expect(restoreRequestHash(one)).not.toBe(restoreRequestHash([one[0], { fileId: b, toVersion: 3 }]));
  });
});
