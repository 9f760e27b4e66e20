import { randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '@lode/errors';
import { startStorageFaultProxy, testS3Options, type StorageFaultProxy } from '@lode/testkit';
import { S3BlobStorage } from '../src/index.ts';

/**
 * With the store answering 503, confirm and restore once answered 500 `internal`, and with a
 * store that stalls they waited past the bus timeout (504). An outage is 503
 * `service_unavailable`, and a stalled store is given up on in time.
 */
describe('the S3 driver while the store is down or stalled', () => {
  let proxy: StorageFaultProxy;
  let storage: S3BlobStorage;
  let bucket: string;
  const key = `p/outage/u/${randomBytes(6).toString('hex')}`;
  const bytes = randomBytes(64);
  const unavailable = (call: Promise<unknown>) =>
    call.then(
      (value) => ({ resolved: value }),
      (error: unknown) => (isAppError(error) ? { code: error.code, retryAfterSeconds: error.details?.retryAfterSeconds } : { other: String(error) }),
    );

  beforeAll(async () => {
    const options = testS3Options();
    bucket = options.bucket;
    proxy = await startStorageFaultProxy(options.endpoint!);
    storage = new S3BlobStorage({ ...options, endpoint: proxy.url });
    await storage.ensureReady();
    await storage.client.send(new PutObjectCommand({ Bucket: options.bucket, Key: key, Body: bytes }));
  });
  afterAll(async () => {
    storage?.destroy();
    await proxy?.close();
  });

  it('answers 503 service_unavailable for every call while the store answers 503', async () => {
    proxy.setMode('unavailable');
    try {
      const expected = { code: 'service_unavailable', retryAfterSeconds: 1 };
      expect(await unavailable(storage.head(key))).toEqual(expected);
      expect(await unavailable(storage.headMany([key]))).toEqual(expected);
      expect(await unavailable(storage.contentMany([key]))).toEqual(expected);
      expect(await unavailable(storage.delete([`${key}-never-stored`]))).toEqual(expected);
      expect(await unavailable(storage.createMultipart(`${key}-multipart`))).toEqual(expected);
      expect(await unavailable(storage.listParts(key, 'upload'))).toEqual(expected);
      expect(await unavailable(storage.completeMultipart(key, 'upload', [{ partNumber: 1, size: 1, etag: `"${'0'.repeat(32)}"` }]))).toEqual(expected);
      expect(await unavailable(storage.abortMultipart(key, 'upload'))).toEqual(expected);
      expect(await unavailable(storage.listMultipartUploads(new Date())[Symbol.asyncIterator]().next())).toEqual(expected);
    } finally {
      proxy.setMode('pass');
    }
    expect(await storage.head(key)).toEqual({ size: bytes.length, verifiedSha256: undefined });
  });

  // Some stores delete a batch's objects a few at a time and answer when done: seconds of silence
  // that must not read as a stalled store, while a HEAD so slow still does.
  it('waits for a store that takes seconds to answer a batch delete', { timeout: 45_000 }, async () => {
    const keys = Array.from({ length: 100 }, (_, i) => `${key}-batch-${i}`);
    await Promise.all(keys.slice(0, 4).map((Key) => storage.client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: 'x' }))));
    proxy.setMode('slow', { slowMs: 5000 });
    try {
      expect(await unavailable(storage.delete(keys))).toEqual({ resolved: undefined });
      expect(await unavailable(storage.head(key))).toEqual({ code: 'service_unavailable', retryAfterSeconds: 1 });
    } finally {
      proxy.setMode('pass');
    }
    expect(await storage.headMany(keys.slice(0, 4))).toEqual([null, null, null, null]);
  });

  // The store holds every request for a minute; the driver must give up long before (the test's
  // own timeout is only a hang guard).
  it('gives up on a store that does not answer, as 503 service_unavailable', { timeout: 45_000 }, async () => {
    proxy.setMode('slow', { slowMs: 60_000 });
    try {
      expect(await unavailable(storage.head(key))).toEqual({ code: 'service_unavailable', retryAfterSeconds: 1 });
    } finally {
      proxy.setMode('pass');
    }
  });
});
