import { PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStorage } from '../src/index.ts';
import { describeContent, testS3Options } from '@lode/testkit';

describe('S3 driver against a real S3 (Swift s3api): storage refuses every body that was not signed', () => {
  let storage: S3BlobStorage;
  let bucket: string;
  let counter = 0;

  beforeAll(async () => {
    const options = testS3Options();
    bucket = options.bucket;
    storage = new S3BlobStorage(options);
    await storage.ensureReady();
  });
  afterAll(() => storage?.destroy());

  const presign = async (bytes: Buffer, expiresInSeconds = 300) => {
    const key = `p/test/u/object-${Date.now()}-${++counter}`;
    return { key, ...(await storage.presignPut({ key, ...describeContent(bytes), expiresInSeconds })) };
  };

  it('accepts the exact body, then HEAD, ranged GET and delete work', async () => {
    const bytes = randomBytes(64 * 1024);
    const put = await presign(bytes);
    expect(put.headers).toEqual({
      'Content-Length': String(bytes.length),
      'Content-MD5': describeContent(bytes).contentMd5,
      'Content-Type': 'application/octet-stream',
    });
    const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes });
    expect(res.status).toBe(200);
    expect((await storage.head(put.key))?.size).toBe(bytes.length);
    const url = await storage.presignGet({ key: put.key, expiresInSeconds: 60 });
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    await storage.delete([put.key, 'p/test/u/never-existed']);
    expect(await storage.head(put.key)).toBeNull();
  });

  it('refuses a tampered body of the same length (400 BadDigest)', async () => {
    const bytes = randomBytes(1000);
    const put = await presign(bytes);
    const tampered = Buffer.from(bytes);
    tampered[500] = tampered[500] ^ 1;
    const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body: tampered });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('BadDigest');
    expect(await storage.head(put.key)).toBeNull();
  });

  it('refuses a different body with its own correct MD5 (403: Content-MD5 is signed)', async () => {
    const put = await presign(randomBytes(1000));
    const other = randomBytes(1000);
    const res = await fetch(put.url, { method: 'PUT', headers: { ...put.headers, 'Content-MD5': describeContent(other).contentMd5 }, body: other });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('SignatureDoesNotMatch');
  });

  it('refuses a body of another length (403: Content-Length is signed)', async () => {
    const put = await presign(randomBytes(1000));
    const longer = randomBytes(1001);
    const res = await fetch(put.url, { method: 'PUT', headers: { 'Content-MD5': describeContent(longer).contentMd5 }, body: longer });
    expect(res.status).toBe(403);
  });

  it('refuses a PUT without Content-MD5', async () => {
    const bytes = randomBytes(100);
    const put = await presign(bytes);
    const res = await fetch(put.url, { method: 'PUT', headers: { 'Content-Length': '100' }, body: bytes });
    expect(res.status).toBe(403);
  });

  it('refuses a PUT with another Content-Type, or none (403: Content-Type is signed)', async () => {
    const bytes = Buffer.from('<html><script>alert(document.domain)</script></html>');
    const put = await presign(bytes);
    const asPage = await fetch(put.url, { method: 'PUT', headers: { ...put.headers, 'Content-Type': 'text/html' }, body: bytes });
    expect(asPage.status).toBe(403);
    expect(await asPage.text()).toContain('SignatureDoesNotMatch');
    const { 'Content-Type': _, ...untyped } = put.headers;
    expect((await fetch(put.url, { method: 'PUT', headers: untyped, body: bytes })).status).toBe(403);
    expect(await storage.head(put.key)).toBeNull();
  });

  it('serves every download as bytes to save, under its file name, whatever type it was stored with', async () => {
    const bytes = Buffer.from('<html><script>alert(document.domain)</script></html>');
    const key = `p/test/u/page-${Date.now()}-${++counter}`;
    // Stored as a page, as an object PUT before Content-Type was signed may have been.
    await storage.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: 'text/html' }));
    const url = await storage.presignGet({ key, expiresInSeconds: 60, filename: 'Ölfass "final".html' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="_lfass _final_.html"; filename*=UTF-8''%C3%96lfass%20%22final%22.html`);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    const unnamed = await fetch(await storage.presignGet({ key, expiresInSeconds: 60 }));
    expect(unnamed.headers.get('content-type')).toBe('application/octet-stream');
    expect(unnamed.headers.get('content-disposition')).toBe('attachment');
    // The overrides are signed: dropping or changing one breaks the URL.
    expect((await fetch(url.replace(/response-content-type=[^&]+/, 'response-content-type=text%2Fhtml'))).status).toBe(403);
    expect((await fetch(url.replace(/&response-content-disposition=[^&]+/, ''))).status).toBe(403);
    await storage.delete([key]);
  });

  it('refuses a tampered signature', async () => {
    const bytes = randomBytes(100);
    const put = await presign(bytes);
    const forged = put.url.replace(/X-Amz-Signature=([0-9a-f])/, (_, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`);
    const res = await fetch(forged, { method: 'PUT', headers: put.headers, body: bytes });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('SignatureDoesNotMatch');
  });

  it('refuses an expired URL', async () => {
    const bytes = randomBytes(100);
    const put = await presign(bytes, 1);
    await new Promise((r) => setTimeout(r, 2100));
    const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes });
    expect(res.status).toBe(403);
  });

  it('signs 1,000 upload URLs quickly (no SDK middleware per URL)', async () => {
    const bytes = randomBytes(10);
    const urls = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => storage.presignPut({ key: `p/test/u/bulk-${i}`, ...describeContent(bytes), expiresInSeconds: 60 })),
    );
    expect(new Set(urls.map((u) => u.url)).size).toBe(1000);
  });
});
