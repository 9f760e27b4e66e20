import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LodeClient } from './client.ts';
import { hashFile } from './hash.ts';
import { multipartEntry, putParts } from './multipart-upload.ts';
import { MiB } from './parts.ts';
import { DEFAULT_RETRY } from './retry.ts';
import type { MultipartForm } from './types.ts';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');

/**
 * A store taking part PUTs at /<generation>/<part>, checking each body against its Content-MD5 as
 * S3 does; URLs of an expired generation answer 403.
 */
async function partStore() {
  const state = { expired: new Set<string>(), parts: new Map<number, Buffer>(), puts: [] as number[] };
  const server = http.createServer((req, res) => {
    const [, generation, part] = (req.url ?? '').split('/');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (state.expired.has(generation)) return void res.writeHead(403).end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      if (md5(body) !== req.headers['content-md5'] || String(body.length) !== req.headers['content-length']) return void res.writeHead(400).end('BadDigest');
      state.parts.set(Number(part), body);
      state.puts.push(Number(part));
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('multipart uploads', () => {
  // Parts of 16, 16 and 8 MiB.
  const bytes = randomBytes(40 * MiB);
  let store: Awaited<ReturnType<typeof partStore>>;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    store = await partStore();
    dir = await mkdtemp(path.join(tmpdir(), 'lode-parts-'));
    file = path.join(dir, 'big.bin');
    await writeFile(file, bytes);
  });
  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("hashes a file's SHA-256 and each part's MD5 in one read, with no whole-file MD5", async () => {
    const digest = await hashFile(file, undefined, undefined, { multipartThreshold: 32 * MiB });
    expect(digest).toEqual({
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      parts: { partSize: 16 * MiB, md5s: [0, 1, 2].map((i) => md5(bytes.subarray(i * 16 * MiB, (i + 1) * 16 * MiB))) },
    });
    expect(multipartEntry('big.bin', digest as Required<typeof digest>).multipart?.parts.map((p) => p.size)).toEqual([16 * MiB, 16 * MiB, 8 * MiB]);
    // Under the threshold, a whole-file MD5 as before.
    expect(await hashFile(file, undefined, undefined, { multipartThreshold: 64 * MiB })).toMatchObject({ md5: md5(bytes) });
  });

  it('PUTs only the parts the store lacks, and renews URLs that expired', async () => {
    const digest = await hashFile(file, undefined, undefined, { multipartThreshold: 32 * MiB });
    const md5s = digest.parts?.md5s ?? [];
    const partForm = (generation: string, partNumber: number) => ({
      partNumber,
      uploadUrl: `${store.base}/${generation}/${partNumber}`,
      requiredHeaders: { 'Content-Length': String(partNumber === 3 ? 8 * MiB : 16 * MiB), 'Content-MD5': md5s[partNumber - 1] },
    });
    const form = (generation: string, missing: number[]): MultipartForm => ({
      path: 'big.bin',
      fileId: '00000000-0000-4000-8000-000000000001',
      version: 1,
      storageKey: 'k',
      multipart: {
        uploadId: 'u',
        partSize: 16 * MiB,
        parts: missing.map((n) => partForm(generation, n)),
        uploaded: [1, 2, 3].filter((n) => !missing.includes(n)).map((n) => ({ partNumber: n, size: n === 3 ? 8 * MiB : 16 * MiB, etag: 'x' })),
      },
    });
    let refreshes = 0;
    const client = {
      uploadParts: async () => {
        refreshes++;
        return form('fresh', [2, 3]);
      },
    } as unknown as LodeClient;
    // Part 1 is held already (a resumed upload); the URLs of parts 2 and 3 have expired.
    store.state.expired.add('stale');
    let moved = 0;
    let parts = 0;
    const outcome = await putParts(client, { path: 'big.bin', localPath: file, digest }, form('stale', [2, 3]), {
      retry: DEFAULT_RETRY,
      onBytes: (n) => (moved += n),
      onPart: () => parts++,
    });
    expect(outcome).toEqual({ total: 3, uploaded: 2, resumed: 1 });
    expect(refreshes).toBe(1);
    expect([...store.state.puts].sort()).toEqual([2, 3]);
    expect(store.state.parts.get(2)?.equals(bytes.subarray(16 * MiB, 32 * MiB))).toBe(true);
    expect(store.state.parts.get(3)?.equals(bytes.subarray(32 * MiB))).toBe(true);
    expect(moved).toBe(bytes.length);
    expect(parts).toBe(3);
  });
});
