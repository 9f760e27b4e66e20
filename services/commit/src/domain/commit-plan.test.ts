import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import type { commit, upload } from '@lode/contracts';
import { checkResolved, planEntries, type TreeState } from './commit-plan.ts';

const file = randomUUID();
const other = randomUUID();
const version = (fileId: string, v: number): upload.ResolvedVersion => ({
  id: randomUUID(),
  fileId,
  version: v,
  sha256: 'a'.repeat(64),
  size: 10 * v,
  storageKey: `k/${fileId}/${v}`,
  uploaderId: randomUUID(),
  uploaderName: 'Ada',
  createdAt: new Date().toISOString(),
});
const resolved = { files: [{ fileId: file, path: 'a.bin' }, { fileId: other, path: 'b.bin' }], versions: [version(file, 1), version(file, 2), version(other, 1)] };
const tree = (states: Partial<TreeState>[]) => new Map(states.map((s) => [s.fileId!, { version: 1, sha256: 'b'.repeat(64), size: 1, deleted: false, ...s } as TreeState]));
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, ...error.details } : error;
  }
  return undefined;
};

describe('commit plan', () => {
  it('names every unknown file, then every unconfirmed version', () => {
    const unknown = randomUUID();
    expect(codeOf(() => checkResolved([{ fileId: unknown, action: 'delete' }], resolved))).toMatchObject({ code: 'not_found', fileIds: [unknown] });
    expect(codeOf(() => checkResolved([{ fileId: file, action: 'add', version: 3 }], resolved))).toMatchObject({
      code: 'version_not_confirmed',
      entries: [{ fileId: file, version: 3 }],
    });
  });

  it('records add for a file absent or deleted on the branch and modify otherwise, whatever the client said', () => {
    const entries: commit.CommitEntryInput[] = [{ fileId: file, action: 'modify', version: 2 }, { fileId: other, action: 'add', version: 1 }];
    const known = checkResolved(entries, resolved);
    expect(planEntries(entries, known, new Map()).map((e) => e.action)).toEqual(['add', 'add']);
    expect(planEntries([entries[0]], known, tree([{ fileId: file }])).map((e) => e.action)).toEqual(['modify']);
    expect(planEntries([entries[0]], known, tree([{ fileId: file, deleted: true }])).map((e) => e.action)).toEqual(['add']);
  });

  it('refuses versions that do not move forward, even over a deleted file', () => {
    const entries: commit.CommitEntryInput[] = [{ fileId: file, action: 'modify', version: 2 }];
    const known = checkResolved(entries, resolved);
    expect(codeOf(() => planEntries(entries, known, tree([{ fileId: file, version: 2, deleted: true }])))).toMatchObject({
      code: 'stale_version',
      entries: [{ fileId: file, version: 2, currentVersion: 2 }],
    });
  });

  it('deletes keep the last version in the tree and carry nulls in the entry', () => {
    const entries: commit.CommitEntryInput[] = [{ fileId: file, action: 'delete' }];
    const [planned] = planEntries(entries, checkResolved(entries, resolved), tree([{ fileId: file, version: 4, size: 40 }]));
    expect(planned).toMatchObject({ action: 'delete', version: null, sha256: null, size: null, treeVersion: 4, treeSize: 40 });
    expect(codeOf(() => planEntries(entries, checkResolved(entries, resolved), new Map()))).toMatchObject({ code: 'file_not_in_branch', fileIds: [file] });
  });
});
