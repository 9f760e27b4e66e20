import { describe, expect, it } from 'vitest';
import { upload } from '@lode/contracts';
import { checkLfsEntries } from './lfs-entries.ts';

const oid = 'a'.repeat(64);

describe('Git LFS batch entries', () => {
  it('are checked one by one: a bad entry is refused as invalid and the others go on, in order', () => {
    const { valid, invalid } = checkLfsEntries('download', [{ oid, size: 3 }, { oid: 'A'.repeat(64), size: 3 }, { oid, size: -1 }, 'x', { oid, size: 1.5 }]);
    expect(valid).toEqual([{ index: 0, oid, size: 3 }]);
    expect(invalid.map((entry) => [entry.index, entry.object.refused?.reason])).toEqual([
      [1, 'invalid'],
      [2, 'invalid'],
      [3, 'invalid'],
      [4, 'invalid'],
    ]);
    expect(invalid[0].object).toMatchObject({ oid: 'A'.repeat(64), size: 3 });
  });

  it('echo only a size the reply can carry', () => {
    expect(checkLfsEntries('download', [{ oid, size: Infinity }]).invalid[0]?.object).toMatchObject({ oid, size: 0, refused: { reason: 'invalid' } });
  });

  it('refuse an upload larger than a single PUT carries, but not its download', () => {
    const size = upload.MAX_FILE_SIZE + 1;
    expect(checkLfsEntries('upload', [{ oid, size }]).invalid[0]?.object.refused?.message).toMatch(/exceeds the largest single upload/);
    expect(checkLfsEntries('download', [{ oid, size }]).valid).toHaveLength(1);
  });
});
