import { describe, expect, it } from 'vitest';
import { etagOf, matchParts, multipartRefusal, partList, promisedParts } from './multipart-parts.ts';

const MiB = 1024 * 1024;
const md5 = 'XrY7u+Ae7tCTyyK7j1rNww==';

describe('multipart rules', () => {
  const request = (sizes: number[], partSize = 8 * MiB) => ({ partSize, parts: sizes.map((size) => ({ size, contentMd5: md5 })) });

  it('accepts parts of partSize with a shorter last one that add up to the file', () => {
    expect(multipartRefusal(17 * MiB, request([8 * MiB, 8 * MiB, MiB]))).toBeUndefined();
    expect(multipartRefusal(3, request([3]))).toBeUndefined();
  });

  it('refuses a middle part of another size, a last part over partSize, and sizes that do not add up', () => {
    expect(multipartRefusal(17 * MiB, request([8 * MiB, MiB, 8 * MiB]))).toContain('parts.1.size');
    expect(multipartRefusal(17 * MiB, request([8 * MiB, 9 * MiB]))).toContain('parts.1.size');
    expect(multipartRefusal(17 * MiB + 1, request([8 * MiB, 8 * MiB, MiB]))).toContain('add up');
  });

  it('derives the promised parts and matches them against what the store lists', () => {
    const promised = promisedParts(17 * MiB, 8 * MiB, [md5, md5, md5]);
    expect(promised.map((p) => p.size)).toEqual([8 * MiB, 8 * MiB, MiB]);
    expect(etagOf(md5)).toBe('"5eb63bbbe01eeed093cb22bb8f5acdc3"');
    const stored = [
      { partNumber: 1, size: 8 * MiB, etag: '5EB63BBBE01EEED093CB22BB8F5ACDC3' },
      { partNumber: 3, size: MiB, etag: '"00000000000000000000000000000000"' },
      { partNumber: 4, size: 1, etag: etagOf(md5) },
    ];
    const { held, lacking, missing } = matchParts(promised, stored);
    expect(held.map((p) => p.partNumber)).toEqual([1]);
    expect(lacking).toEqual([2, 3]);
    expect(missing).toEqual([2]);
  });

  it('names a few parts and counts the rest', () => {
    expect(partList([2])).toBe('part 2');
    expect(partList(Array.from({ length: 12 }, (_, i) => i + 1))).toBe('parts 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more');
  });
});
