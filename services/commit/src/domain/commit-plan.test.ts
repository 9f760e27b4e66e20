import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { commit, type upload } from '@lode/contracts';
import { checkResolved, planEntries, type Entries, type Resolution, type TreeState } from './commit-plan.ts';

const file = randomUUID();
const other = randomUUID();
/** What the upload service knows in these tests: two files, file at versions 1 and 2, other at 1. */
const paths = new Map<string, string>([
  [file, 'a.bin'],
  [other, 'b.bin'],
]);
const confirmed = new Set([`${file}@1`, `${file}@2`, `${other}@1`]);
const entries = (fileVersions: commit.CommitEntryInput[]): Entries => commit.toColumns({ message: 'm', fileVersions });
/** The upload service's answer for the entries, aligned with them as resolve_versions answers. */
const resolve = (e: Entries): Resolution => {
  const known = e.fileIds.map((fileId, i) => (e.versions[i] !== null && confirmed.has(`${fileId}@${e.versions[i]}`) ? (e.versions[i] ?? 0) : null));
  const column = <T>(value: (v: number) => T) => known.map((v) => (v === null ? null : value(v)));
  const versions: upload.ResolveReply['versions'] = {
    ids: column(() => randomUUID()),
    sha256s: column(() => 'a'.repeat(64)),
    sizes: column((v) => 10 * v),
    storageKeys: column((v) => `k/${v}`),
    uploaderIds: column(() => randomUUID()),
    uploaderNames: column(() => 'Ada'),
    createdAts: column(() => new Date().toISOString()),
  };
  return { paths: e.fileIds.map((id) => paths.get(id) ?? null), versions };
};
const tree = (states: Partial<TreeState>[]) =>
  new Map(states.map((s) => [s.fileId!, { version: 1, sha256: 'b'.repeat(64), size: 1, deleted: false, ...s } as TreeState]));
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
    const deleteUnknown = entries([{ fileId: unknown, action: 'delete' }]);
    expect(codeOf(() => checkResolved(deleteUnknown, resolve(deleteUnknown)))).toMatchObject({ code: 'not_found', fileIds: [unknown] });
    const unconfirmed = entries([{ fileId: file, action: 'add', version: 3 }]);
    expect(codeOf(() => checkResolved(unconfirmed, resolve(unconfirmed)))).toMatchObject({
      code: 'version_not_confirmed',
      entries: [{ fileId: file, version: 3 }],
    });
  });

  it('refuses a reply that does not answer every entry', () => {
    const both = entries([
      { fileId: file, action: 'add', version: 1 },
      { fileId: other, action: 'add', version: 1 },
    ]);
    const short = resolve(both);
    short.paths.pop();
    expect(codeOf(() => checkResolved(both, short))).toMatchObject({ code: 'internal' });
  });

  it('records add for a file absent or deleted on the branch and modify otherwise, whatever the client said', () => {
    const both = entries([
      { fileId: file, action: 'modify', version: 2 },
      { fileId: other, action: 'add', version: 1 },
    ]);
    const first = entries([{ fileId: file, action: 'modify', version: 2 }]);
    expect(planEntries(both, resolve(both), new Map()).map((e) => e.action)).toEqual(['add', 'add']);
    expect(planEntries(first, resolve(first), tree([{ fileId: file }])).map((e) => e.action)).toEqual(['modify']);
    expect(planEntries(first, resolve(first), tree([{ fileId: file, deleted: true }])).map((e) => e.action)).toEqual(['add']);
  });

  it('refuses versions that do not move forward, even over a deleted file', () => {
    const modify = entries([{ fileId: file, action: 'modify', version: 2 }]);
    expect(codeOf(() => planEntries(modify, resolve(modify), tree([{ fileId: file, version: 2, deleted: true }])))).toMatchObject({
      code: 'stale_version',
      entries: [{ fileId: file, version: 2, currentVersion: 2 }],
    });
  });

  it('deletes keep the last version in the tree and carry nulls in the entry', () => {
    const remove = entries([{ fileId: file, action: 'delete' }]);
    const [planned] = planEntries(remove, resolve(remove), tree([{ fileId: file, version: 4, size: 40 }]));
    expect(planned).toMatchObject({ action: 'delete', version: null, sha256: null, size: null, versionId: null, treeVersion: 4, treeSize: 40 });
    expect(codeOf(() => planEntries(remove, resolve(remove), new Map()))).toMatchObject({ code: 'file_not_in_branch', fileIds: [file] });
  });
});
