import { describe, expect, it } from 'vitest';
import { validateEntries, uploadUrlTtlSeconds } from './initiate-entries.ts';

const ok = { sha256: 'a'.repeat(64), size: 3, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==' };

describe('validateEntries', () => {
  it('isolates bad entries from good ones', () => {
    const { valid, invalid } = validateEntries([
      { path: 'a.bin', ...ok },
      { path: 'b.bin', ...ok, size: 6 * 1024 ** 3 },
      { path: '../c.bin', ...ok },
      { path: 'd.bin', ...ok, sha256: 'nothex' },
      'not an object',
    ]);
    expect(valid.map((v) => v.path)).toEqual(['a.bin']);
    expect(invalid.map((i) => [i.index, i.error.code])).toEqual([
      [1, 'file_too_large'],
      [2, 'validation_failed'],
      [3, 'validation_failed'],
      [4, 'validation_failed'],
    ]);
  });

  it('refuses a path repeated in another case within one batch', () => {
    const { valid, invalid } = validateEntries([
      { path: 'Art/Hero.psd', ...ok },
      { path: 'art/hero.PSD', ...ok },
    ]);
    expect(valid).toHaveLength(1);
    expect(invalid[0]?.index).toBe(1);
  });

  it('lowercases the declared SHA-256', () => {
    expect(validateEntries([{ path: 'x', ...ok, sha256: 'A'.repeat(64) }]).valid[0]?.sha256).toBe('a'.repeat(64));
  });
});

describe('uploadUrlTtlSeconds', () => {
  it('grows with the size and stays within SigV4 limits', () => {
    expect(uploadUrlTtlSeconds(0)).toBe(900);
    expect(uploadUrlTtlSeconds(5 * 1024 ** 3)).toBe(900 + 5120);
    expect(uploadUrlTtlSeconds(Number.MAX_SAFE_INTEGER)).toBe(604800);
  });
});
