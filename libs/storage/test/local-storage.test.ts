import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContent } from '@lode/testkit';
import { LocalBlobStorage } from '../src/index.ts';
import { servedLocalStorage } from './served-local-storage.ts';
import { sealedHeader } from '../src/local-layout.ts';

describe('local storage driver: presigned URLs served over HTTP', () => {
  let dir: string;
  let storage: LocalBlobStorage;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, dir, close } = await servedLocalStorage('lode-local-'));
  });
  afterAll(() => close());

  let counter = 0;
  const presign = async (bytes: Buffer, expiresInSeconds = 60) => {
    const key = `p/test/u/object${++counter}`;
    return { key, ...(await storage.presignPut({ key, ...describeContent(bytes), expiresInSeconds })) };
  };

  it('stores an exact body and reports its size and verified SHA-256', async () => {
    const bytes = randomBytes(100_000);
    const put = await presign(bytes);
    expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
    expect(await storage.head(put.key)).toEqual({ size: bytes.length, verifiedSha256: describeContent(bytes).sha256 });
    const url = await storage.presignGet({ key: put.key, expiresInSeconds: 60 });
    const download = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(download.equals(bytes)).toBe(true);
    const ranged = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
  });

  it('serves an object as a download a browser neither renders nor sniffs, and its refusals as JSON it does not sniff', async () => {
    const bytes = Buffer.from('<html><script>alert(1)</script></html>');
    const put = await presign(bytes);
    expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
    const url = await storage.presignGet({ key: put.key, expiresInSeconds: 60 });
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(url, { method });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe('attachment');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const refused = await fetch(`${url}x`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves a download under the file name it was signed with, and refuses a URL whose name was changed', async () => {
    const bytes = Buffer.from('<html><script>alert(1)</script></html>');
    const put = await presign(bytes);
    expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
    const url = await storage.presignGet({ key: put.key, expiresInSeconds: 60, filename: 'Ölfass "final".html' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="_lfass _final_.html"; filename*=UTF-8''%C3%96lfass%20%22final%22.html`);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    const renamed = url.replace(/filename=[^&]+/, 'filename=invoice.exe');
    expect((await fetch(renamed)).status).toBe(403);
    expect((await fetch(url.replace(/&filename=[^&]+/, ''))).status).toBe(403);
  });

  it('stores a body of several pieces as one file, sealed with its SHA-256, and serves, ranges, hashes and deletes it', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const put = await presign(bytes);
    expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
    const name = path.basename(put.key);
    expect((await readdir(path.dirname(storage.sealedPath(put.key)))).filter((f) => f === name || f.startsWith(`${name}.`))).toEqual([name]);
    expect(await storage.head(put.key)).toEqual({ size: bytes.length, verifiedSha256: describeContent(bytes).sha256 });
    expect(await storage.contentMany([put.key])).toEqual([{ size: bytes.length, sha256: describeContent(bytes).sha256 }]);
    const url = await storage.presignGet({ key: put.key, expiresInSeconds: 60 });
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(bytes)).toBe(true);
    const tail = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(tail.headers.get('content-range')).toBe(`bytes ${bytes.length - 5}-${bytes.length - 1}/${bytes.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(-5))).toBe(true);
    await storage.delete([put.key]);
    expect(await storage.head(put.key)).toBeNull();
    expect((await fetch(url)).status).toBe(404);
  });

  it('reads, serves and deletes an object stored by an earlier version: its bytes, and its SHA-256 in a sidecar', async () => {
    const bytes = randomBytes(5000);
    const key = `p/test/u/earlier${++counter}`;
    await mkdir(path.dirname(storage.objectPath(key)), { recursive: true });
    await writeFile(storage.objectPath(key), bytes);
    await writeFile(storage.shaPath(key), describeContent(bytes).sha256);
    expect(await storage.head(key)).toEqual({ size: bytes.length, verifiedSha256: describeContent(bytes).sha256 });
    expect(await storage.headMany([key, 'p/test/u/missing'])).toEqual([{ size: bytes.length, verifiedSha256: describeContent(bytes).sha256 }, null]);
    expect(await storage.contentMany([key, 'p/test/u/missing'])).toEqual([{ size: bytes.length, sha256: describeContent(bytes).sha256 }, null]);
    const url = await storage.presignGet({ key, expiresInSeconds: 60 });
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    await storage.delete([key]);
    expect(await storage.head(key)).toBeNull();
    expect(await readdir(path.dirname(storage.objectPath(key)))).not.toContain(path.basename(key));
  });

  it('answers headMany per key in key order, each with its verified SHA-256, null where nothing is stored', async () => {
    const [a, b] = [randomBytes(10), randomBytes(20)];
    const [putA, putB] = [await presign(a), await presign(b)];
    expect((await fetch(putA.url, { method: 'PUT', headers: putA.headers, body: a })).status).toBe(200);
    expect((await fetch(putB.url, { method: 'PUT', headers: putB.headers, body: b })).status).toBe(200);
    const [infoA, infoB] = [
      { size: 10, verifiedSha256: describeContent(a).sha256 },
      { size: 20, verifiedSha256: describeContent(b).sha256 },
    ];
    expect(await storage.headMany([putB.key, 'p/test/u/missing', putA.key, putB.key])).toEqual([infoB, null, infoA, infoB]);
  });

  it('answers headMany of more keys than one reader takes at once, in key order, and refuses an object whose header is corrupt', async () => {
    const keys = Array.from({ length: 600 }, (_, i) => `p/test/many/k${i}`);
    await mkdir(path.dirname(storage.sealedPath(keys[0])), { recursive: true });
    const sha256 = (i: number) => i.toString(16).padStart(64, '0');
    const stored = (i: number) => i % 3 !== 0;
    await Promise.all(keys.flatMap((key, i) => (stored(i) ? [writeFile(storage.sealedPath(key), `${sealedHeader(sha256(i))}${'x'.repeat(i)}`)] : [])));
    expect(await storage.headMany(keys)).toEqual(keys.map((_, i) => (stored(i) ? { size: i, verifiedSha256: sha256(i) } : null)));
    await writeFile(storage.sealedPath('p/test/many/corrupt'), 'lode sha256 not-a-digest\n');
    await expect(storage.head('p/test/many/corrupt')).rejects.toThrow(/Corrupt object header/);
  });

  it('names the required header a PUT left out, instead of a signature mismatch', async () => {
    const bytes = randomBytes(100);
    const put = await presign(bytes);
    const res = await fetch(put.url, { method: 'PUT', headers: { 'Content-Length': String(bytes.length) }, body: bytes });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'missing_header', message: expect.stringContaining('Content-MD5') });
    expect(await storage.head(put.key)).toBeNull();
  });

  it('answers a refused PUT of a large body with its error, not a reset connection, and keeps the connection usable', async () => {
    const bytes = randomBytes(100);
    const put = await presign(bytes);
    const large = Buffer.alloc(17 * 1024 * 1024);
    // The client reads the refusal after the first megabyte, then sends the rest, as an upload
    // client busy writing does: the rest must not meet a closed connection.
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        put.url.replace(/signature=[^&]+/, 'signature=forged'),
        { method: 'PUT', headers: { ...put.headers, 'Content-Length': String(large.length) } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => req.end(large.subarray(1024 * 1024), () => resolve({ status: res.statusCode ?? 0, body })));
        },
      );
      req.on('error', reject);
      req.write(large.subarray(0, 1024 * 1024));
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'signature_mismatch' });
    expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
  });

  it('answers 400 for an object key that is not valid percent-encoding', async () => {
    const put = await presign(randomBytes(10));
    const res = await fetch(put.url.replace(put.key, 'p/%E0%A4%A'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_key' });
  });

  it('refuses a tampered body of the same length (MD5 mismatch) and stores nothing', async () => {
    const bytes = randomBytes(1000);
    const put = await presign(bytes);
    const tampered = Buffer.from(bytes);
    tampered[0] = tampered[0] ^ 0xff;
    const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body: tampered });
    expect(res.status).toBe(400);
    expect(await storage.head(put.key)).toBeNull();
    expect(await readdir(path.join(dir, 'incoming'))).toEqual([]);
  });

  it('refuses a body whose MD5 matches a forged Content-MD5 header (signature covers it)', async () => {
    const bytes = randomBytes(1000);
    const other = randomBytes(1000);
    const put = await presign(bytes);
    const res = await fetch(put.url, { method: 'PUT', headers: { ...put.headers, 'Content-MD5': describeContent(other).contentMd5 }, body: other });
    expect(res.status).toBe(403);
  });

  it('keeps every directory it makes 0700 and every stored blob 0600, a small body and a large one alike', async () => {
    const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
    for (const bytes of [randomBytes(1000), randomBytes(2 * 1024 * 1024 + 3)]) {
      const put = await presign(bytes);
      expect((await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(200);
      expect(await modeOf(storage.sealedPath(put.key))).toBe(0o600);
      for (let folder = path.dirname(storage.sealedPath(put.key)); folder.startsWith(dir); folder = path.dirname(folder)) {
        expect(await modeOf(folder), folder).toBe(0o700);
      }
    }
    expect(await modeOf(storage.incomingPath(''))).toBe(0o700);
  });

  it('tightens a blob directory an earlier version made 0755', async () => {
    const earlier = await mkdtemp(path.join(tmpdir(), 'lode-local-earlier-'));
    try {
      for (const folder of [earlier, path.join(earlier, 'sealed'), path.join(earlier, 'incoming')]) {
        await mkdir(folder, { recursive: true });
        await chmod(folder, 0o755);
      }
      await new LocalBlobStorage({ dir: earlier, secret: 's'.repeat(40), publicUrl: 'http://127.0.0.1:1' }).ensureReady();
      for (const folder of [earlier, path.join(earlier, 'sealed'), path.join(earlier, 'incoming')])
        expect((await stat(folder)).mode & 0o777, folder).toBe(0o700);
    } finally {
      await rm(earlier, { recursive: true, force: true });
    }
  });

  it('refuses a body of another length', async () => {
    const bytes = randomBytes(1000);
    const put = await presign(bytes);
    const longer = randomBytes(1001);
    const res = await fetch(put.url, {
      method: 'PUT',
      headers: { 'Content-MD5': describeContent(longer).contentMd5, 'Content-Length': '1001' },
      body: longer,
    });
    expect(res.status).toBe(403);
  });

  it('refuses content whose SHA-256 differs from the one signed, even with matching MD5 and length', async () => {
    const declared = randomBytes(64);
    const actual = randomBytes(64);
    const key = `p/test/u/liar${++counter}`;
    // A client lying about the SHA-256 at initiate: MD5 and length describe the real body.
    const put = await storage.presignPut({ key, ...describeContent(actual), sha256: describeContent(declared).sha256, expiresInSeconds: 60 });
    const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body: actual });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'sha256_mismatch' });
    expect(await storage.head(key)).toBeNull();
  });

  it('refuses a tampered signature and an expired URL', async () => {
    const bytes = randomBytes(10);
    const put = await presign(bytes);
    const forged = put.url.replace(/signature=[^&]+/, 'signature=AAAA');
    expect((await fetch(forged, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(403);
    const stale = await presign(bytes, -1);
    const res = await fetch(stale.url, { method: 'PUT', headers: stale.headers, body: bytes });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'url_expired' });
  });

  it('does not serve a download URL as an upload URL or the reverse', async () => {
    const bytes = randomBytes(10);
    const put = await presign(bytes);
    expect((await fetch(put.url)).status).toBe(403);
    await fetch(put.url, { method: 'PUT', headers: put.headers, body: bytes });
    const get = await storage.presignGet({ key: put.key, expiresInSeconds: 60 });
    expect((await fetch(get, { method: 'PUT', headers: put.headers, body: bytes })).status).toBe(403);
  });
});
