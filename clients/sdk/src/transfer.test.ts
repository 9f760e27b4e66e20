import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY } from './retry.ts';
import { downloadToFile, putFile } from './transfer.ts';

/**
 * A store that refuses the first PUT and the first GET of each object 503 SlowDown with `Retry-After: 1`, then accepts
 * it, and notes when each request arrived. A stand-in for the store's answer only: what is tested is
 * the client's wait, which no real store can be asked to provoke on demand.
 */
async function slowDownStore() {
  const arrivals = new Map<string, number[]>();
  const objects = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const key = `${req.method} ${req.url}`;
    const seen = arrivals.get(key) ?? [];
    seen.push(performance.now());
    arrivals.set(key, seen);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (seen.length === 1) {
        res.writeHead(503, { 'retry-after': '1' }).end('<Error><Code>SlowDown</Code></Error>');
        return;
      }
      if (req.method === 'PUT') objects.set(req.url ?? '', Buffer.concat(chunks));
      res.writeHead(200).end(req.method === 'GET' ? objects.get(req.url ?? '') : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (key: string) => `http://127.0.0.1:${port}/${key}`,
    waitedMs: (method: string, key: string) => {
      const [first, second] = arrivals.get(`${method} /${key}`) ?? [];
      return second - first;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("storage transfers honour the store's Retry-After", () => {
  let store: Awaited<ReturnType<typeof slowDownStore>>;
  let dir: string;
  // Backoff alone would come back after 125-250 ms; the store asked for a second.
  const options = { retry: { ...DEFAULT_RETRY, baseDelayMs: 250 } };
  beforeAll(async () => {
    store = await slowDownStore();
    dir = await mkdtemp(path.join(tmpdir(), 'lode-transfer-'));
  });
  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['a small body, moved whole', 1024],
    ['a large body, streamed', 3 * 1024 * 1024],
  ])('a PUT and a GET of %s each wait out a 503 SlowDown, then succeed', async (_label, size) => {
    const key = `object-${size}`;
    const bytes = randomBytes(size);
    const file = path.join(dir, `${key}.up`);
    await writeFile(file, bytes);
    await putFile(key, store.url(key), { 'content-length': String(size) }, file, options);
    expect(store.waitedMs('PUT', key)).toBeGreaterThanOrEqual(990);

    const dest = path.join(dir, `${key}.down`);
    await downloadToFile(key, store.url(key), dest, { sha256: createHash('sha256').update(bytes).digest('hex'), size }, options);
    expect(store.waitedMs('GET', key)).toBeGreaterThanOrEqual(990);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });
});

describe('a store that refuses a streamed body before it is all sent', () => {
  it('is answered at once with its refusal, not after the rest of the body stalls', async () => {
    // Answers 403 on the request's headers, as a store does an expired URL, then discards the body.
    const server = http.createServer((req, res) => {
      res.writeHead(403).end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      req.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(path.join(tmpdir(), 'lode-transfer-'));
    try {
      const file = path.join(dir, 'part.bin');
      await writeFile(file, randomBytes(16 * 1024 * 1024));
      const { port } = server.address() as AddressInfo;
      const started = performance.now();
      const refused = await putFile('part', `http://127.0.0.1:${port}/part`, { 'content-length': String(16 * 1024 * 1024) }, file, {
        retry: DEFAULT_RETRY,
      }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 403, message: expect.stringMatching(/Request has expired/) });
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
