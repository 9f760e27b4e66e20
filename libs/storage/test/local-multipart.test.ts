import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '@lode/errors';
import { LocalBlobStorage } from '../src/index.ts';
import { servedLocalStorage } from './served-local-storage.ts';
import { download, etagOf, md5Of, MiB, multipartScenarios, putPart } from './multipart-scenarios.ts';

describe('local storage driver: multipart uploads served over HTTP', () => {
  let storage: LocalBlobStorage;
  let close: () => Promise<void>;
  let counter = 0;
  const newKey = () => `p/test/u/multipart${++counter}`;

  beforeAll(async () => {
    ({ storage, close } = await servedLocalStorage('lode-local-multipart-'));
  });
  afterAll(() => close());

  multipartScenarios(() => storage, newKey);

  it('keeps an upload as a private folder of its key and its parts, named by number and MD5, and leaves nothing once completed', async () => {
    const key = newKey();
    const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
    const uploadId = await storage.createMultipart(key);
    const folder = storage.uploadPath(uploadId);
    expect(await modeOf(storage.uploadPath())).toBe(0o700);
    expect(await modeOf(folder)).toBe(0o700);
    expect(await readFile(path.join(folder, 'key'), 'utf8')).toBe(key);
    const parts = [randomBytes(5 * MiB), randomBytes(10)];
    for (const [i, bytes] of parts.entries()) expect((await putPart(storage, key, uploadId, i + 1, bytes)).status).toBe(200);
    const names = parts.map((bytes, i) => `${i + 1}.${etagOf(bytes).slice(1, -1)}`);
    expect((await readdir(folder)).sort()).toEqual(['key', ...names].sort());
    for (const name of names) expect(await modeOf(path.join(folder, name))).toBe(0o600);
    await storage.completeMultipart(key, uploadId, (await storage.listParts(key, uploadId))!);
    expect(await modeOf(storage.sealedPath(key))).toBe(0o600);
    expect(await readdir(storage.uploadPath())).not.toContain(uploadId);
    expect(await readdir(storage.incomingPath(''))).toEqual([]);
    expect((await storage.head(key))?.size).toBe(5 * MiB + 10);
  });

  it('lets a part PUT again with other bytes displace the one stored before', async () => {
    const key = newKey();
    const uploadId = await storage.createMultipart(key);
    const [before, after] = [randomBytes(1000), randomBytes(2000)];
    expect((await putPart(storage, key, uploadId, 1, before)).status).toBe(200);
    expect((await putPart(storage, key, uploadId, 1, after)).status).toBe(200);
    expect(await storage.listParts(key, uploadId)).toEqual([{ partNumber: 1, size: 2000, etag: etagOf(after) }]);
    expect((await readdir(storage.uploadPath(uploadId))).length).toBe(2);
    await storage.completeMultipart(key, uploadId, (await storage.listParts(key, uploadId))!);
    expect((await download(storage, key)).bytes.equals(after)).toBe(true);
  });

  it('serves a part URL for its upload, part number and key only, and never as a whole-object URL', async () => {
    const key = newKey();
    const uploadId = await storage.createMultipart(key);
    const bytes = randomBytes(1000);
    const signed = await storage.presignPart({ key, uploadId, partNumber: 1, size: bytes.length, contentMd5: md5Of(bytes), expiresInSeconds: 60 });
    const put = (url: string) => fetch(url, { method: 'PUT', headers: signed.headers, body: bytes });
    expect((await put(signed.url.replace('partNumber=1', 'partNumber=2'))).status).toBe(403);
    expect((await put(signed.url.replace(/uploadId=[^&]+&/, ''))).status).toBe(403);
    expect((await put(signed.url.replace(key, `${key}x`))).status).toBe(403);
    const other = await storage.createMultipart(key);
    expect((await put(signed.url.replace(uploadId, other))).status).toBe(403);
    expect((await fetch(signed.url, { method: 'PUT', headers: { 'Content-Length': '1000' }, body: bytes })).status).toBe(400);
    expect(await storage.listParts(key, uploadId)).toEqual([]);
    // A URL for another key's upload is refused before a byte is stored.
    const foreign = await storage.presignPart({ key: `${key}x`, uploadId, partNumber: 1, size: 1000, contentMd5: md5Of(bytes), expiresInSeconds: 60 });
    expect((await fetch(foreign.url, { method: 'PUT', headers: foreign.headers, body: bytes })).status).toBe(404);
    expect(await storage.listParts(`${key}x`, uploadId)).toBeNull();
    expect((await put(signed.url)).status).toBe(200);
    await Promise.all([storage.abortMultipart(key, uploadId), storage.abortMultipart(key, other)]);
  });

  it('refuses to complete from a part smaller than the store joins, unless it is the last', async () => {
    const key = newKey();
    const uploadId = await storage.createMultipart(key);
    const parts = [randomBytes(MiB), randomBytes(10)];
    for (const [i, bytes] of parts.entries()) expect((await putPart(storage, key, uploadId, i + 1, bytes)).status).toBe(200);
    const error = await storage.completeMultipart(key, uploadId, (await storage.listParts(key, uploadId))!).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('upload_incomplete');
    expect(await storage.head(key)).toBeNull();
    await storage.abortMultipart(key, uploadId);
  });

  it('lists no upload begun before a folder exists, and tightens the folder of uploads to 0700', async () => {
    const fresh = await mkdtemp(path.join(tmpdir(), 'lode-local-multipart-fresh-'));
    try {
      const local = new LocalBlobStorage({ dir: fresh, secret: 's'.repeat(40), publicUrl: 'http://127.0.0.1:1' });
      const none = [];
      for await (const page of local.listMultipartUploads(new Date(Date.now() + 60_000))) none.push(page);
      expect(none).toEqual([]);
      await local.ensureReady();
      expect((await stat(local.uploadPath())).mode & 0o777).toBe(0o700);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});
