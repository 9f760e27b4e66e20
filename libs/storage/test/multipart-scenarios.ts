import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { isAppError } from '@lode/errors';
import type { BlobStorage, OpenMultipartUpload, StoredPart } from '../src/index.ts';

/**
 * What multipart uploads do on every driver, run against each (local-multipart.test.ts through the
 * local driver's HTTP handler, s3-multipart.test.ts against Swift's s3api). Parts are 8 MiB, as the
 * store requires every part but the last to be at least 5 MiB.
 */
export const MiB = 1024 * 1024;

export function md5Of(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('base64');
}

export function etagOf(bytes: Buffer): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

/** PUTs one part of an upload through its presigned URL, with exactly the headers it answered. */
export async function putPart(storage: BlobStorage, key: string, uploadId: string, partNumber: number, bytes: Buffer, body = bytes): Promise<Response> {
  const signed = await storage.presignPart({ key, uploadId, partNumber, size: bytes.length, contentMd5: md5Of(bytes), expiresInSeconds: 300 });
  return fetch(signed.url, { method: 'PUT', headers: signed.headers, body });
}

/** Sends the first `sent` bytes of a part's body, then drops the connection, as a client that crashed mid-part does. */
export async function putPartCutShort(storage: BlobStorage, key: string, uploadId: string, partNumber: number, bytes: Buffer, sent: number): Promise<void> {
  const signed = await storage.presignPart({ key, uploadId, partNumber, size: bytes.length, contentMd5: md5Of(bytes), expiresInSeconds: 300 });
  await new Promise<void>((resolve) => {
    const req = httpRequest(signed.url, { method: 'PUT', headers: signed.headers });
    req.on('error', () => resolve());
    req.on('response', (res) => {
      res.resume();
      resolve();
    });
    req.write(bytes.subarray(0, sent), () => setTimeout(() => req.destroy(), 100));
    req.on('close', () => resolve());
  });
}

export async function openUploads(storage: BlobStorage, before: Date): Promise<OpenMultipartUpload[]> {
  const all: OpenMultipartUpload[] = [];
  for await (const page of storage.listMultipartUploads(before)) {
    expect(page.length).toBeGreaterThan(0);
    all.push(...page);
  }
  return all;
}

/** The object's bytes through a presigned GET, whole or (with `range`) one range of them. */
export async function download(storage: BlobStorage, key: string, range?: string): Promise<{ status: number; bytes: Buffer }> {
  const url = await storage.presignGet({ key, expiresInSeconds: 60 });
  const res = await fetch(url, { headers: range === undefined ? {} : { range } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'resolved',
    (error: unknown) => (isAppError(error) ? error.code : String(error)),
  );

/** Registers the shared cases; `storage()` answers the driver once the suite's beforeAll made it. */
export function multipartScenarios(storage: () => BlobStorage, newKey: () => string): void {
  it('joins parts of 8 MiB, 8 MiB and 1 MiB, PUT through presigned URLs, into one object served whole and by range', async () => {
    const key = newKey();
    const parts = [randomBytes(8 * MiB), randomBytes(8 * MiB), randomBytes(MiB)];
    const uploadId = await storage().createMultipart(key);
    const signed = await storage().presignPart({ key, uploadId, partNumber: 1, size: parts[0].length, contentMd5: md5Of(parts[0]), expiresInSeconds: 60 });
    expect(signed.headers).toEqual({ 'Content-Length': String(8 * MiB), 'Content-MD5': md5Of(parts[0]) });
    // Out of order, as parallel uploads finish.
    for (const n of [2, 1, 3]) {
      const res = await putPart(storage(), key, uploadId, n, parts[n - 1]);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe(etagOf(parts[n - 1]));
    }
    expect(await storage().head(key)).toBeNull();
    const listed = await storage().listParts(key, uploadId);
    expect(listed).toEqual(parts.map((bytes, i): StoredPart => ({ partNumber: i + 1, size: bytes.length, etag: etagOf(bytes) })));
    await storage().completeMultipart(key, uploadId, listed!);
    const whole = Buffer.concat(parts);
    expect((await storage().head(key))?.size).toBe(whole.length);
    expect(await storage().listParts(key, uploadId)).toBeNull();
    const got = await download(storage(), key);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(whole)).toBe(true);
    // Across the boundary of the first two parts, and the last bytes.
    const across = await download(storage(), key, `bytes=${8 * MiB - 10}-${8 * MiB + 9}`);
    expect(across.status).toBe(206);
    expect(across.bytes.equals(whole.subarray(8 * MiB - 10, 8 * MiB + 10))).toBe(true);
    const tail = await download(storage(), key, 'bytes=-100');
    expect(tail.bytes.equals(whole.subarray(-100))).toBe(true);
    const [content] = await storage().contentMany([key]);
    expect(content).toEqual({ size: whole.length, sha256: createHash('sha256').update(whole).digest('hex') });
    await storage().delete([key]);
  });

  it('refuses a part whose body does not match its signed MD5 (4xx), and lists nothing for it', async () => {
    const key = newKey();
    const uploadId = await storage().createMultipart(key);
    const bytes = randomBytes(MiB);
    const tampered = Buffer.from(bytes);
    tampered[1000] ^= 1;
    const refused = await putPart(storage(), key, uploadId, 1, bytes, tampered);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // Another body with its own correct MD5: the signature covers the MD5.
    const signed = await storage().presignPart({ key, uploadId, partNumber: 1, size: bytes.length, contentMd5: md5Of(bytes), expiresInSeconds: 60 });
    const forged = await fetch(signed.url, { method: 'PUT', headers: { ...signed.headers, 'Content-MD5': md5Of(tampered) }, body: tampered });
    expect(forged.status).toBe(403);
    expect(await storage().listParts(key, uploadId)).toEqual([]);
    await storage().abortMultipart(key, uploadId);
  });

  it('stores a part PUT again after a PUT cut short, and a part PUT twice, once', async () => {
    const key = newKey();
    const uploadId = await storage().createMultipart(key);
    const [first, last] = [randomBytes(8 * MiB), randomBytes(MiB)];
    await putPartCutShort(storage(), key, uploadId, 1, first, 3 * MiB);
    expect((await putPart(storage(), key, uploadId, 1, first)).status).toBe(200);
    expect((await putPart(storage(), key, uploadId, 2, last)).status).toBe(200);
    expect((await putPart(storage(), key, uploadId, 2, last)).status).toBe(200);
    const listed = await storage().listParts(key, uploadId);
    expect(listed).toEqual([
      { partNumber: 1, size: first.length, etag: etagOf(first) },
      { partNumber: 2, size: last.length, etag: etagOf(last) },
    ]);
    await storage().completeMultipart(key, uploadId, listed!);
    expect((await download(storage(), key)).bytes.equals(Buffer.concat([first, last]))).toBe(true);
    await storage().delete([key]);
  });

  it('aborts an upload: its parts are gone, it is listed no more, and aborting again is no error', async () => {
    const key = newKey();
    const uploadId = await storage().createMultipart(key);
    expect((await putPart(storage(), key, uploadId, 1, randomBytes(MiB))).status).toBe(200);
    const later = new Date(Date.now() + 60_000);
    expect((await openUploads(storage(), later)).some((u) => u.uploadId === uploadId)).toBe(true);
    await storage().abortMultipart(key, uploadId);
    expect(await storage().listParts(key, uploadId)).toBeNull();
    expect((await openUploads(storage(), later)).some((u) => u.uploadId === uploadId)).toBe(false);
    await storage().abortMultipart(key, uploadId);
    expect((await putPart(storage(), key, uploadId, 2, randomBytes(1000))).status).toBe(404);
    expect(await codeOf(storage().completeMultipart(key, uploadId, [{ partNumber: 1, size: MiB, etag: etagOf(randomBytes(1)) }]))).toBe('upload_incomplete');
    expect(await storage().head(key)).toBeNull();
  });

  it('lists an open upload begun before `before`, and not one begun after it', async () => {
    const key = newKey();
    const uploadId = await storage().createMultipart(key);
    const listed = await openUploads(storage(), new Date(Date.now() + 60_000));
    const found = listed.find((u) => u.uploadId === uploadId);
    expect(found).toMatchObject({ key, uploadId });
    expect(Math.abs(found!.initiated.getTime() - Date.now())).toBeLessThan(60_000);
    expect((await openUploads(storage(), new Date(Date.now() - 60_000))).some((u) => u.uploadId === uploadId)).toBe(false);
    await storage().abortMultipart(key, uploadId);
  });

  it('completes an upload called twice at once, and again after success, as once', async () => {
    const key = newKey();
    const parts = [randomBytes(8 * MiB), randomBytes(MiB)];
    const uploadId = await storage().createMultipart(key);
    for (const [i, bytes] of parts.entries()) expect((await putPart(storage(), key, uploadId, i + 1, bytes)).status).toBe(200);
    const listed = (await storage().listParts(key, uploadId))!;
    await Promise.all([storage().completeMultipart(key, uploadId, listed), storage().completeMultipart(key, uploadId, listed)]);
    await storage().completeMultipart(key, uploadId, listed);
    expect((await download(storage(), key)).bytes.equals(Buffer.concat(parts))).toBe(true);
    // An abort after success leaves the object as it is.
    await storage().abortMultipart(key, uploadId);
    expect((await download(storage(), key)).bytes.equals(Buffer.concat(parts))).toBe(true);
    await storage().delete([key]);
  });

  it('refuses to complete from a part the store does not hold as listed (upload_incomplete), and stores nothing', async () => {
    const key = newKey();
    const parts = [randomBytes(8 * MiB), randomBytes(MiB)];
    const uploadId = await storage().createMultipart(key);
    for (const [i, bytes] of parts.entries()) expect((await putPart(storage(), key, uploadId, i + 1, bytes)).status).toBe(200);
    const listed = (await storage().listParts(key, uploadId))!;
    const otherBytes = [listed[0], { ...listed[1], etag: etagOf(randomBytes(10)) }];
    expect(await codeOf(storage().completeMultipart(key, uploadId, otherBytes))).toBe('upload_incomplete');
    const unstored = [listed[0], { partNumber: 3, size: MiB, etag: etagOf(randomBytes(10)) }];
    expect(await codeOf(storage().completeMultipart(key, uploadId, unstored))).toBe('upload_incomplete');
    expect(await storage().head(key)).toBeNull();
    expect(await storage().listParts(key, uploadId)).toEqual(listed);
    await storage().abortMultipart(key, uploadId);
  });
}
