import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAppError } from '@lode/errors';
import { isLaterPart, parsePartFileName, partFileName } from './local-layout.ts';
import { partField, sign } from './local-signing.ts';
import { checkPartsToJoin, checkPartToSign, quotedEtag } from './multipart-rules.ts';

const MiB = 1024 * 1024;
const etag = `"${'a'.repeat(32)}"`;

describe('multipart rules', () => {
  it('joins parts in ascending order, each once, every one but the last at least 5 MiB', () => {
    expect(() => checkPartsToJoin([{ partNumber: 1, size: 10, etag }])).not.toThrow();
    expect(() =>
      checkPartsToJoin([
        { partNumber: 1, size: 5 * MiB, etag },
        { partNumber: 3, size: 1, etag },
      ]),
    ).not.toThrow();
    expect(() => checkPartsToJoin([])).toThrow(/at least one part/);
    expect(() =>
      checkPartsToJoin([
        { partNumber: 2, size: 5 * MiB, etag },
        { partNumber: 2, size: 1, etag },
      ]),
    ).toThrow(/ascending/);
    expect(() => checkPartsToJoin([{ partNumber: 10_001, size: 1, etag }])).toThrow(/between 1 and 10000/);
    expect(() => checkPartsToJoin([{ partNumber: 1, size: 1, etag: '"xyz"' }])).toThrow(/quoted hex MD5/);
    const tooSmall = (() => {
      try {
        checkPartsToJoin([
          { partNumber: 1, size: 5 * MiB - 1, etag },
          { partNumber: 2, size: 1, etag },
        ]);
      } catch (error) {
        return error;
      }
    })();
    expect(isAppError(tooSmall) && tooSmall.code).toBe('upload_incomplete');
  });

  it('signs a part only with a part number in range and a base64 MD5', () => {
    const part = { key: 'p/a/u/b', uploadId: 'x', partNumber: 1, size: 1, contentMd5: 'rL0Y20zC+Fzt72VPzMSk2A==', expiresInSeconds: 60 };
    expect(() => checkPartToSign(part)).not.toThrow();
    expect(() => checkPartToSign({ ...part, partNumber: 0 })).toThrow();
    expect(() => checkPartToSign({ ...part, partNumber: 1.5 })).toThrow();
    expect(() => checkPartToSign({ ...part, contentMd5: 'abc' })).toThrow();
    expect(() => checkPartToSign({ ...part, key: '../x' })).toThrow();
  });

  it('quotes an ETag a store answered bare', () => {
    expect(quotedEtag('abc')).toBe('"abc"');
    expect(quotedEtag('"abc"')).toBe('"abc"');
  });
});

describe('local part files', () => {
  it('are named by part number and hex MD5, and nothing else parses as one', () => {
    expect(parsePartFileName(partFileName(12, 'f'.repeat(32)))).toEqual({ partNumber: 12, md5Hex: 'f'.repeat(32) });
    for (const name of ['key', '0.' + 'f'.repeat(32), '1.' + 'F'.repeat(32), '1.' + 'f'.repeat(31), '01.' + 'f'.repeat(32)]) {
      expect(parsePartFileName(name), name).toBeNull();
    }
  });

  it('of one part number: the one renamed in last is the part, by name on a tie', () => {
    expect(isLaterPart({ name: 'a', ctimeNs: 2n }, { name: 'b', ctimeNs: 1n })).toBe(true);
    expect(isLaterPart({ name: 'a', ctimeNs: 1n }, { name: 'b', ctimeNs: 2n })).toBe(false);
    expect(isLaterPart({ name: 'b', ctimeNs: 1n }, { name: 'a', ctimeNs: 1n })).toBe(true);
    expect(isLaterPart({ name: 'a', ctimeNs: 1n }, { name: 'b', ctimeNs: 1n })).toBe(false);
  });
});

describe('local signatures', () => {
  const secret = 's'.repeat(40);
  const hmac = (canonical: string) => createHmac('sha256', secret).update(canonical).digest('base64url');

  it('sign a whole object as before parts were signed, so URLs handed out earlier stay valid', () => {
    const put = { method: 'PUT', key: 'p/a/u/b', expires: 100, contentLength: '10', contentMd5: 'md5', sha256: 'sha' } as const;
    expect(sign(secret, put)).toBe(hmac('PUT\np/a/u/b\n100\n10\nmd5\nsha'));
    expect(sign(secret, { method: 'GET', key: 'p/a/u/b', expires: 100, filename: 'f.bin' })).toBe(hmac('GET\np/a/u/b\n100\n\n\n\nf.bin'));
  });

  it('sign a part with its upload and number, so no part URL writes a whole object or another part', () => {
    const part = { method: 'PUT', key: 'p/a/u/b', expires: 100, contentLength: '10', contentMd5: 'md5' } as const;
    const one = sign(secret, { ...part, part: partField('u', '1') });
    expect(one).toBe(hmac(`PUT\np/a/u/b\n100\n10\nmd5\n\npart u 1`));
    expect(one).not.toBe(sign(secret, part));
    expect(one).not.toBe(sign(secret, { ...part, part: partField('u', '2') }));
  });
});
