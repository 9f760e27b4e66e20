import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commitBodySchema, commitCreated, commitEntrySchema, committedEntrySchema } from './commit.ts';

/** The body as it was parsed before the loop: zod entry by entry, the reference for every answer. */
const reference = commitBodySchema.extend({ fileVersions: z.array(commitEntrySchema).min(1, 'must list 1 to 25,000 entries').max(25_000) });

const id = () => randomUUID().toUpperCase();
const bodies: Record<string, unknown> = {
  'adds, modifies and deletes, with extra fields and upper-case ids': {
    message: 'work',
    fileVersions: [
      { fileId: id(), action: 'add', version: 1, path: 'ignored' },
      { fileId: id(), action: 'modify', version: 7 },
      { fileId: id(), action: 'delete' },
      { fileId: id(), action: 'delete', version: 3 },
    ],
  },
  'a bad id': {
    message: 'm',
    fileVersions: [
      { fileId: id(), action: 'add', version: 1 },
      { fileId: 'nope', action: 'add', version: 1 },
    ],
  },
  'an unknown action': { message: 'm', fileVersions: [{ fileId: id(), action: 'rename', version: 1 }] },
  'a version of 0': { message: 'm', fileVersions: [{ fileId: id(), action: 'modify', version: 0 }] },
  'a fractional version': { message: 'm', fileVersions: [{ fileId: id(), action: 'add', version: 1.5 }] },
  'an add without a version': { message: 'm', fileVersions: [{ fileId: id(), action: 'add' }] },
  'a delete with a bad version': { message: 'm', fileVersions: [{ fileId: id(), action: 'delete', version: '2' }] },
  'an entry that is not an object': { message: 'm', fileVersions: [null, 3, [id()]] },
  'no entries': { message: 'm', fileVersions: [] },
  'entries that are not an array': { message: 'm', fileVersions: { fileId: id() } },
};

describe('commitBodySchema', () => {
  it.each(Object.entries(bodies))('answers %s exactly as zod entry by entry does', (_, body) => {
    const [fast, strict] = [commitBodySchema.safeParse(body), reference.safeParse(body)];
    expect(fast.success).toBe(strict.success);
    if (fast.success && strict.success) expect(fast.data).toEqual(strict.data);
    else expect(fast.error?.issues.map((i) => [i.path, i.message])).toEqual(strict.error?.issues.map((i) => [i.path, i.message]));
  });
});

const event = (entries: unknown[]) => ({
  commitId: randomUUID(),
  projectId: randomUUID(),
  branch: 'main',
  sequenceNum: 1,
  message: 'm',
  author: { userId: randomUUID(), userName: 'Ada' },
  createdAt: new Date().toISOString(),
  fileCount: entries.length,
  part: 1,
  parts: 1,
  entries,
});
const referenceEvent = commitCreated.schema.extend({ entries: z.array(committedEntrySchema) });
const sha = 'AB'.repeat(32);
const events: Record<string, unknown> = {
  'every action, upper-case ids and hashes': event([
    { fileId: id(), path: 'a.bin', action: 'add', version: 1, sha256: sha, size: 0 },
    { fileId: id(), path: 'b.bin', action: 'modify', version: 4, sha256: sha, size: 10 },
    { fileId: id(), path: 'c.bin', action: 'delete', version: null, sha256: null, size: null },
  ]),
  'a short hash': event([{ fileId: id(), path: 'a', action: 'add', version: 1, sha256: 'abc', size: 1 }]),
  'a negative size': event([{ fileId: id(), path: 'a', action: 'add', version: 1, sha256: sha, size: -1 }]),
  'a missing path': event([{ fileId: id(), action: 'add', version: 1, sha256: sha, size: 1 }]),
  'a missing version': event([{ fileId: id(), path: 'a', action: 'add', sha256: sha, size: 1 }]),
};

describe('commitCreated', () => {
  it.each(Object.entries(events))('reads %s exactly as zod entry by entry does', (_, body) => {
    const [fast, strict] = [commitCreated.schema.safeParse(body), referenceEvent.safeParse(body)];
    expect(fast.success).toBe(strict.success);
    if (fast.success && strict.success) expect(fast.data).toEqual(strict.data);
    else expect(fast.error?.issues.map((i) => [i.path, i.message])).toEqual(strict.error?.issues.map((i) => [i.path, i.message]));
  });
});
