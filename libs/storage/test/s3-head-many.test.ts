import { createHash, randomUUID } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testS3Options } from '@lode/testkit';
import { S3BlobStorage } from '../src/index.ts';

/** More objects than one listing page (1,000) holds, so that listings must continue. */
const OBJECTS = 1050;
/**
 * One bucket and prefix for every run, the keys and sizes derived from their index: the objects
 * stay, so a run PUTs only those no run before it has (all of them the first time) instead of a
 * fresh bucket's worth again. Other objects would need another prefix.
 */
const BUCKET = 'lode-test-head-many';
const PREFIX = 'p/3f0c1c52-9d0e-4c55-8a53-1a4c4f1e7d01/u/';

describe('S3 driver headMany and contentMany against a real S3 (Swift s3api)', () => {
  const options = testS3Options(BUCKET);
  let storage: S3BlobStorage;
  /** The stored keys of one project's prefix, in S3's order, each holding (index % 7) + 1 bytes. */
  let keys: string[];
  const sizeOf = (i: number) => (i % 7) + 1;
  /** The S3 requests the driver sent, by command name: the real store answers, the test counts. */
  let sent: string[] = [];
  const count = (command: string) => sent.filter((name) => name === command).length;
  const put = (Key: string, size: number) => storage.client.send(new PutObjectCommand({ Bucket: options.bucket, Key, Body: Buffer.alloc(size) }));

  beforeAll(async () => {
    storage = new S3BlobStorage(options);
    await storage.ensureReady();
    keys = Array.from({ length: OBJECTS }, (_, i) => `${PREFIX}${String(i).padStart(4, '0')}`);
    const stored = await storedSizes();
    const missing = keys.flatMap((key, i) => (stored.get(key) === sizeOf(i) ? [] : [i]));
    for (let i = 0; i < missing.length; i += 50) await Promise.all(missing.slice(i, i + 50).map((index) => put(keys[index], sizeOf(index))));
    storage.client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(context.commandName as string);
        return next(args);
      },
      { step: 'initialize', name: 'testRequestCounter' },
    );
  });
  /** What the bucket holds under PREFIX, by key. */
  async function storedSizes(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    let ContinuationToken: string | undefined;
    do {
      const page = await storage.client.send(new ListObjectsV2Command({ Bucket: options.bucket, Prefix: PREFIX, ContinuationToken }));
      for (const { Key, Size } of page.Contents ?? []) if (Key) sizes.set(Key, Size ?? 0);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return sizes;
  }
  beforeEach(() => {
    sent = [];
  });
  afterAll(() => storage?.destroy());

  it('reads each distinct object once for contentMany: size and SHA-256 in key order, null for a missing key, nothing HEADed or listed', async () => {
    const missing = `${keys[0]}-gone`;
    const content = (i: number) => ({
      size: sizeOf(i),
      sha256: createHash('sha256')
        .update(Buffer.alloc(sizeOf(i)))
        .digest('hex'),
    });
    expect(await storage.contentMany([keys[5], missing, keys[3], keys[5]])).toEqual([content(5), null, content(3), content(5)]);
    expect(sent).toEqual(['GetObjectCommand', 'GetObjectCommand', 'GetObjectCommand']);
  });

  it('HEADs a few keys: sizes in key order, null for a missing key, a repeated key checked once', async () => {
    const missing = `${keys[0]}-gone`;
    expect(await storage.headMany([keys[5], missing, keys[3], keys[5]])).toEqual([
      { size: sizeOf(5), verifiedSha256: undefined },
      null,
      { size: sizeOf(3), verifiedSha256: undefined },
      { size: sizeOf(5), verifiedSha256: undefined },
    ]);
    expect(sent.sort()).toEqual(['HeadObjectCommand', 'HeadObjectCommand', 'HeadObjectCommand']);
  });

  it('lists many keys across pages, and HEADs only the keys the listing did not show, to confirm they are gone', async () => {
    // Missing keys that sort among the stored ones, before the first and after the last.
    const missing = [`${keys[0].slice(0, -1)}`, `${keys[500]}-gone`, `${keys[OBJECTS - 1]}-gone`];
    const wanted = [...missing, ...keys].reverse();
    const answers = await storage.headMany(wanted);
    expect(answers).toEqual(wanted.map((key) => (missing.includes(key) ? null : { size: sizeOf(keys.indexOf(key)), verifiedSha256: undefined })));
    expect(count('ListObjectsV2Command')).toBe(2);
    expect(count('HeadObjectCommand')).toBe(missing.length);
  });

  it('stops listing after a page that found too few wanted keys, and HEADs the keys beyond it', async () => {
    // The first page reaches keys[999]: of the wanted keys it finds only keys[0].
    const wanted = [keys[0], ...keys.slice(1001)];
    const answers = await storage.headMany(wanted);
    expect(answers).toEqual(wanted.map((key) => ({ size: sizeOf(keys.indexOf(key)), verifiedSha256: undefined })));
    expect(count('ListObjectsV2Command')).toBe(1);
    expect(count('HeadObjectCommand')).toBe(wanted.length - 1);
  });

  it('lists each prefix of many keys on its own, HEADs a prefix of few, and answers null where nothing is stored', async () => {
    const emptyPrefix = `p/${randomUUID()}/u/`;
    const nothingStored = Array.from({ length: 40 }, () => `${emptyPrefix}${randomUUID()}`);
    const stored = keys.slice(100, 140);
    const lone = `p/${randomUUID()}/u/${randomUUID()}`;
    const answers = await storage.headMany([...nothingStored, ...stored, lone]);
    expect(answers).toEqual([...nothingStored.map(() => null), ...stored.map((key) => ({ size: sizeOf(keys.indexOf(key)), verifiedSha256: undefined })), null]);
    expect(count('ListObjectsV2Command')).toBe(2);
    expect(count('HeadObjectCommand')).toBe(nothingStored.length + 1);
  });
});
