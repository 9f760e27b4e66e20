import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateConfirmEntries } from './confirm-entries.ts';

const entry = (fileId: string, extra: Record<string, unknown> = {}) => ({
  fileId,
  version: 1,
  storageKey: 'p/x/u/y',
  sha256: 'A'.repeat(64),
  size: 3,
  ...extra,
});

describe('validateConfirmEntries', () => {
  it('keeps valid entries with their index, normalised as the single confirm parses them', () => {
    const id = randomUUID().toUpperCase();
    const { valid, invalid } = validateConfirmEntries([entry(id)]);
    expect(invalid).toEqual([]);
    expect(valid).toEqual([{ index: 0, body: { ...entry(id.toLowerCase()), sha256: 'a'.repeat(64) } }]);
  });

  it('fails each bad entry alone, echoing the fileId and version it carried, or null', () => {
    const id = randomUUID();
    const { valid, invalid } = validateConfirmEntries([entry(id, { dedup: true }), null, { fileId: 7, version: 'x' }, entry(randomUUID())]);
    expect(valid.map((v) => v.index)).toEqual([3]);
    expect(invalid.map(({ index, fileId, version, error }) => ({ index, fileId, version, code: error.code }))).toEqual([
      { index: 0, fileId: id, version: 1, code: 'validation_failed' },
      { index: 1, fileId: null, version: null, code: 'validation_failed' },
      { index: 2, fileId: null, version: null, code: 'validation_failed' },
    ]);
    expect(invalid[0].error.message).toMatch(/storageKey/);
  });

  it('echoes no fileId that is not a UUID (a megabyte of text, a path), and a UUID lower-cased as the valid entries are', () => {
    const id = randomUUID();
    const sent = ['x'.repeat(1 << 20), '../../etc/passwd', 'not-a-uuid', id.toUpperCase()];
    const { invalid } = validateConfirmEntries(sent.map((fileId) => entry(fileId, { size: -1 })));
    expect(invalid.map((i) => i.fileId)).toEqual([null, null, null, id]);
  });

  it('echoes no version that is not one: infinite, fractional, negative or past int4', () => {
    const versions = [Number.POSITIVE_INFINITY, 1.5, -1, 0, 2 ** 31];
    const { invalid } = validateConfirmEntries(versions.map((version) => entry(randomUUID(), { version })));
    expect(invalid.map((i) => i.version)).toEqual(versions.map(() => null));
  });

  it('refuses a file listed again after its first occurrence: one version per file per batch', () => {
    const id = randomUUID();
    const { valid, invalid } = validateConfirmEntries([entry(id), entry(id, { version: 2 })]);
    expect(valid.map((v) => v.index)).toEqual([0]);
    expect(invalid).toEqual([
      { index: 1, fileId: id, version: 2, error: expect.objectContaining({ code: 'validation_failed', message: expect.stringMatching(/more than once/) }) },
    ]);
  });
});
