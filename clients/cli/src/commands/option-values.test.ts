import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { commitMessage, multipartThreshold, parseByteSize, quotaValue } from './option-values.ts';

describe('-m, the commit message', () => {
  it('is trimmed, and refused before any byte moves when the server would refuse it after the uploads', () => {
    expect(commitMessage('  Forest lighting \n')).toBe('Forest lighting');
    for (const bad of ['', '   ', 'x'.repeat(10_001), 'a\u0000b', 'half \ud800 pair'])
      expect(() => commitMessage(bad), JSON.stringify(bad.slice(0, 20))).toThrow(InvalidArgumentError);
    expect(commitMessage('emoji 🎮 ok')).toBe('emoji 🎮 ok');
  });
});

describe('--multipart-threshold, a size', () => {
  it('takes bytes or binary units, in any case, with or without iB', () => {
    expect(parseByteSize('67108864')).toBe(64 * 2 ** 20);
    expect(parseByteSize('64MiB')).toBe(64 * 2 ** 20);
    expect(parseByteSize('64m')).toBe(64 * 2 ** 20);
    expect(parseByteSize('1.5 GB')).toBe(1.5 * 2 ** 30);
    expect(parseByteSize('2t')).toBe(2 * 2 ** 40);
    expect(parseByteSize('512b')).toBe(512);
    for (const bad of ['', 'MiB', '-1M', '1e9', '64 mebibytes', '10XB']) expect(parseByteSize(bad), bad).toBeUndefined();
  });

  it('is refused under 1MiB, before any byte moves', () => {
    expect(multipartThreshold('1MiB')).toBe(2 ** 20);
    for (const bad of ['1000000', '0', 'lots']) expect(() => multipartThreshold(bad), bad).toThrow(InvalidArgumentError);
  });
});

describe('lode quota set, a size or none', () => {
  it('takes a size in any unit, or none to remove the quota, and refuses anything else', () => {
    expect(quotaValue('50GiB')).toBe(50 * 2 ** 30);
    expect(quotaValue('1073741824')).toBe(2 ** 30);
    expect(quotaValue('None')).toBeNull();
    expect(() => quotaValue('-1')).toThrow(InvalidArgumentError);
    expect(() => quotaValue('lots')).toThrow(InvalidArgumentError);
  });
});
