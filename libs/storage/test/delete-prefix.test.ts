import { PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testS3Options } from '@lode/testkit';
import { LocalBlobStorage, S3BlobStorage, sealedHeader, type BlobStorage } from '../src/index.ts';

/** How each driver gets an object stored under a key, without the upload flow around it. */
interface Driver {
  storage: BlobStorage;
  put(key: string): Promise<void>;
  close(): Promise<void>;
}

async function localDriver(): Promise<Driver> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lode-prefix-'));
  const storage = new LocalBlobStorage({ dir, secret: 'x'.repeat(32), publicUrl: 'http://127.0.0.1' });
  await storage.ensureReady();
  return {
    storage,
    async put(key) {
      await mkdir(path.dirname(storage.sealedPath(key)), { recursive: true });
      await writeFile(storage.sealedPath(key), sealedHeader('0'.repeat(64)));
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

async function s3Driver(): Promise<Driver> {
  const options = testS3Options();
  const storage = new S3BlobStorage(options);
  await storage.ensureReady();
  return {
    storage,
    async put(key) {
      await storage.client.send(new PutObjectCommand({ Bucket: options.bucket, Key: key, Body: 'x' }));
    },
    close: async () => storage.destroy(),
  };
}

describe.each([
  ['local', localDriver],
  ['s3', s3Driver],
] as const)('deletePrefix (%s driver)', (_name, makeDriver) => {
  let driver: Driver;
  beforeAll(async () => {
    driver = await makeDriver();
  });
  afterAll(() => driver?.close());

  it('deletes every object under the folder, at any depth, and nothing beside it', async () => {
    const project = randomUUID();
    const inside = [`p/${project}/u/a`, `p/${project}/u/b`, `p/${project}/lfs/deep/c`];
    // A key that starts with the same characters but lies in another folder.
    const beside = [`p/${project}x/u/a`, `p/${randomUUID()}/u/a`];
    for (const key of [...inside, ...beside]) await driver.put(key);

    await driver.storage.deletePrefix(`p/${project}/`);
    expect((await driver.storage.headMany(inside)).every((o) => o === null)).toBe(true);
    expect((await driver.storage.headMany(beside)).every((o) => o !== null)).toBe(true);
    // Done again, over nothing, it is no error.
    await driver.storage.deletePrefix(`p/${project}/`);
  });

  it('takes whole folders only', async () => {
    for (const prefix of ['p/abc', '', '/', 'p/../x/', 'p//']) await expect(driver.storage.deletePrefix(prefix)).rejects.toThrow(/Invalid storage key prefix/);
  });
});
