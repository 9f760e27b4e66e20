import { describe, expect, it } from 'vitest';
import { changedOnBoth, planMerge, type Candidate, type Side } from './merge-plan.ts';

const FORK = 10;
const sha = (c: string) => c.repeat(64);
const at = (version: number, content: string, commitSeq: number, deleted = false): Side => ({ version, sha256: sha(content), size: 1, deleted, commitSeq });
const file = (id: string, source: Side | undefined, target: Side | undefined): Candidate => ({ fileId: id, path: `${id}.bin`, source, target });
const plan = (candidates: Candidate[], resolutions: Record<string, 'source' | 'target'> = {}) =>
  planMerge(candidates, FORK, new Map(Object.entries(resolutions)));

describe('planMerge', () => {
  it('takes what changed on the source only: a new version, an added file, a deletion', () => {
    const result = plan([
      file('modified', at(3, 'b', 12), at(1, 'a', 5)),
      file('added', at(4, 'c', 13), undefined),
      file('deleted', at(1, 'a', 14, true), at(1, 'a', 5)),
    ]);
    expect(result.conflicts).toEqual([]);
    expect(result.takes).toEqual([
      { fileId: 'modified', path: 'modified.bin', action: 'set', version: 3, newVersion: false },
      { fileId: 'added', path: 'added.bin', action: 'set', version: 4, newVersion: false },
      { fileId: 'deleted', path: 'deleted.bin', action: 'delete' },
    ]);
  });

  it('leaves what changed on the target only, or on both to the same state', () => {
    const result = plan([
      file('target-only', at(1, 'a', 5), at(2, 'b', 12)),
      file('target-added', undefined, at(2, 'b', 12)),
      file('same-content', at(3, 'b', 12), at(4, 'b', 13)),
      file('both-deleted', at(1, 'a', 12, true), at(1, 'a', 13, true)),
      file('added-and-deleted-on-source', at(5, 'x', 12, true), undefined),
    ]);
    expect(result).toEqual({ takes: [], conflicts: [] });
  });

  it('reports a conflict for different changes on both sides, a deletion against a change included', () => {
    const result = plan([
      file('both', at(3, 'b', 12), at(4, 'c', 13)),
      file('deleted-here-changed-there', at(1, 'a', 12, true), at(2, 'c', 13)),
      file('changed-here-deleted-there', at(3, 'b', 12), at(1, 'a', 13, true)),
      file('added-on-both', at(5, 'x', 12), at(6, 'y', 13)),
    ]);
    expect(result.takes).toEqual([]);
    expect(result.conflicts).toEqual([
      { fileId: 'both', path: 'both.bin', sourceVersion: 3, targetVersion: 4 },
      { fileId: 'deleted-here-changed-there', path: 'deleted-here-changed-there.bin', sourceVersion: null, targetVersion: 2 },
      { fileId: 'changed-here-deleted-there', path: 'changed-here-deleted-there.bin', sourceVersion: 3, targetVersion: null },
      { fileId: 'added-on-both', path: 'added-on-both.bin', sourceVersion: 5, targetVersion: 6 },
    ]);
  });

  it('settles a conflict as a resolution says; taking a version not newer than the target makes a new one', () => {
    const candidates = [
      file('older', at(3, 'b', 12), at(4, 'c', 13)),
      file('newer', at(5, 'b', 12), at(4, 'c', 13)),
      file('kept', at(3, 'b', 12), at(4, 'c', 13)),
    ];
    const result = plan(candidates, { older: 'source', newer: 'source', kept: 'target', unrelated: 'source' });
    expect(result.conflicts).toEqual([]);
    expect(result.takes).toEqual([
      { fileId: 'older', path: 'older.bin', action: 'set', version: 3, newVersion: true },
      { fileId: 'newer', path: 'newer.bin', action: 'set', version: 5, newVersion: false },
    ]);
  });

  it("counts a target's deleted version: bringing back an older one makes a new version", () => {
    const result = plan([file('revived', at(2, 'b', 12), at(3, 'c', 13, true))], { revived: 'source' });
    expect(result.takes).toEqual([{ fileId: 'revived', path: 'revived.bin', action: 'set', version: 2, newVersion: true }]);
  });

  it('ignores a resolution for a file that is no conflict: a source-only change is taken all the same', () => {
    const result = plan([file('clean', at(3, 'b', 12), at(1, 'a', 5))], { clean: 'target' });
    expect(result.takes).toEqual([{ fileId: 'clean', path: 'clean.bin', action: 'set', version: 3, newVersion: false }]);
  });
});

describe('a file merged before', () => {
  it("takes the source's newer change when the target's version came from the source's lineage", () => {
    const candidates = [file('again', at(5, 'c', 20), at(3, 'b', 15))];
    expect(plan(candidates).conflicts).toHaveLength(1);
    const known = [{ ...candidates[0], targetKnownToSource: true }];
    expect(plan(known)).toEqual({ takes: [{ fileId: 'again', path: 'again.bin', action: 'set', version: 5, newVersion: false }], conflicts: [] });
  });

  it("leaves the target alone when the source's version is one the target already had", () => {
    const caughtUp = { ...file('caught-up', at(3, 'b', 15), at(4, 'c', 20)), sourceKnownToTarget: true };
    expect(plan([caughtUp])).toEqual({ takes: [], conflicts: [] });
  });

  it('names the files whose lineages must be asked: changed on both, live on both, different', () => {
    const candidates = [
      file('both', at(3, 'b', 12), at(4, 'c', 13)),
      file('deleted', at(3, 'b', 12, true), at(4, 'c', 13)),
      file('one-side', at(3, 'b', 12), at(1, 'a', 5)),
    ];
    expect(changedOnBoth(candidates, FORK)).toEqual([{ fileId: 'both', sourceVersion: 3, targetVersion: 4 }]);
  });
});
