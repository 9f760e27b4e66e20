import { describe, expect, it } from 'vitest';
import {
  fromRuns,
  heldRanges,
  MAX_PARTS,
  MAX_SINGLE_PUT,
  MiB,
  movesInParts,
  partCount,
  partPlanProblem,
  partSizeFor,
  rangeSizeFor,
  spans,
  toRuns,
} from './parts.ts';

const GiB = 1024 * MiB;
const TiB = 1024 * GiB;

describe('part planning', () => {
  it.each([
    [64 * MiB, 16 * MiB, 4],
    [1 * GiB, 16 * MiB, 64],
    [6 * GiB, 16 * MiB, 384],
    [16 * GiB, 17 * MiB, 964],
    // 16 MiB would make more than the 1,000 parts every store takes: the smallest whole MiB that does not.
    [100 * GiB, 103 * MiB, 995],
    [500 * GiB, 512 * MiB, 1000],
    // Parts are at most 512 MiB: a larger file takes more of them.
    [TiB, 512 * MiB, 2048],
    [4 * TiB, 512 * MiB, 8192],
  ])('a file of %d bytes goes in parts of %d bytes, %d of them', (size, partSize, parts) => {
    expect(partSizeFor(size)).toBe(partSize);
    expect(partCount(size, partSize)).toBe(parts);
    expect(partCount(size, partSize)).toBeLessThanOrEqual(MAX_PARTS);
  });

  it('keeps every plan up to 1 TiB within the API: whole MiB, 16 MiB to 512 MiB, at most 1,000 parts up to 500 GiB', () => {
    for (let size = 1; size <= TiB; size = Math.ceil(size * 1.37) + 12345) {
      const partSize = partSizeFor(size);
      expect(partSize % MiB).toBe(0);
      expect(partSize).toBeGreaterThanOrEqual(16 * MiB);
      expect(partPlanProblem(size, partSize, partCount(size, partSize))).toBeUndefined();
      if (size <= 500 * GiB) expect(partCount(size, partSize)).toBeLessThanOrEqual(1000);
      // The smallest that fits: one MiB less would make too many parts (or go under the floor).
      if (partSize > 16 * MiB && partSize < 512 * MiB) expect(partCount(size, partSize - MiB)).toBeGreaterThan(1000);
    }
  });

  it('cuts a file into consecutive parts, each but the last of the part size', () => {
    expect(spans(40 * MiB, 16 * MiB)).toEqual([
      { index: 0, start: 0, end: 16 * MiB },
      { index: 1, start: 16 * MiB, end: 32 * MiB },
      { index: 2, start: 32 * MiB, end: 40 * MiB },
    ]);
    expect(spans(32 * MiB, 16 * MiB).map((s) => s.end - s.start)).toEqual([16 * MiB, 16 * MiB]);
    expect(spans(0, 16 * MiB)).toEqual([]);
  });

  it('goes in parts from the threshold, and always above a single PUT’s 5 GiB', () => {
    expect(movesInParts(64 * MiB - 1)).toBe(false);
    expect(movesInParts(64 * MiB)).toBe(true);
    expect(movesInParts(10 * MiB, 8 * MiB)).toBe(true);
    expect(movesInParts(MAX_SINGLE_PUT, Infinity)).toBe(false);
    expect(movesInParts(MAX_SINGLE_PUT + 1, Infinity)).toBe(true);
    expect(movesInParts(0, 0)).toBe(false);
  });

  it('names what makes a plan one the API refuses', () => {
    expect(partPlanProblem(40 * MiB, 16 * MiB, 3)).toBeUndefined();
    expect(partPlanProblem(40 * MiB, 16 * MiB, 2)).toMatch(/2 part digests for 3 parts/);
    expect(partPlanProblem(40 * MiB, 4 * MiB, 10)).toMatch(/part size/);
    expect(partPlanProblem(400 * GiB, 16 * MiB, 25_600)).toMatch(/more than 10000/);
    expect(partPlanProblem(0, 16 * MiB, 0)).toMatch(/cannot be uploaded in parts/);
  });
});

describe('range planning', () => {
  it('fetches in 32 MiB ranges, larger ones above 10,000 ranges', () => {
    expect(rangeSizeFor(64 * MiB)).toBe(32 * MiB);
    expect(rangeSizeFor(100 * GiB)).toBe(32 * MiB);
    expect(rangeSizeFor(TiB)).toBe(105 * MiB);
    expect(spans(100 * MiB, rangeSizeFor(100 * MiB)).map((s) => [s.start, s.end])).toEqual([
      [0, 32 * MiB],
      [32 * MiB, 64 * MiB],
      [64 * MiB, 96 * MiB],
      [96 * MiB, 100 * MiB],
    ]);
  });
});

describe('resume bookkeeping', () => {
  it('records the ranges on disk as merged runs, whatever order they finished in', () => {
    expect(toRuns([3, 0, 1, 7, 2, 8, 1])).toEqual([
      [0, 4],
      [7, 9],
    ]);
    expect(toRuns([])).toEqual([]);
    expect([...fromRuns(toRuns([5, 0, 2, 1]), 10)].sort()).toEqual([0, 1, 2, 5]);
  });

  it('reads back no range from a malformed record, and none past the file’s end', () => {
    expect(fromRuns('nonsense', 10).size).toBe(0);
    expect(fromRuns([[0, 2], 'x'], 10).size).toBe(0);
    expect(fromRuns([[0, 1.5]], 10).size).toBe(0);
    expect([...fromRuns([[8, 20]], 10)]).toEqual([8, 9]);
  });

  it('trusts a record only for the same content, size and range size', () => {
    const expected = { sha256: 'a'.repeat(64), size: 100 * MiB };
    const record = { ...expected, rangeSize: 32 * MiB, held: [[0, 2]] };
    expect([...heldRanges(record, expected, 32 * MiB)]).toEqual([0, 1]);
    expect(heldRanges(record, { ...expected, sha256: 'b'.repeat(64) }, 32 * MiB).size).toBe(0);
    expect(heldRanges(record, { ...expected, size: 99 * MiB }, 32 * MiB).size).toBe(0);
    expect(heldRanges(record, expected, 16 * MiB).size).toBe(0);
    expect(heldRanges(null, expected, 32 * MiB).size).toBe(0);
  });
});
