import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiB } from './parts.ts';
import { downloadInRanges, resumablePaths } from './ranged-download.ts';
import { DEFAULT_RETRY } from './retry.ts';
import { isPartialDownload } from './transfer.ts';

/**
 * A store serving one object, honouring Range (or not), that can cut the body of chosen ranges
 * short, as a dropped connection or a killed process would. Notes the first byte of each GET.
 */
async function rangeStore(object: Buffer) {
  const state = { honourRange: true, cut: new Set<number>(), starts: [] as number[], expired: new Set<string>() };
  const server = http.createServer((req, res) => {
    if (state.expired.has(new URL(req.url ?? '/', 'http://store').searchParams.get('gen') ?? '')) {
      res.writeHead(403).end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      return;
    }
    const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!state.honourRange || !match) {
      state.starts.push(0);
      res.writeHead(200, { 'content-length': object.length }).end(object);
      return;
    }
    const start = Number(match[1]);
    const end = Math.min(Number(match[2]), object.length - 1);
    state.starts.push(start);
    res.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${object.length}` });
    if (state.cut.has(start)) {
      res.write(object.subarray(start, start + 1024), () => res.destroy());
      return;
    }
    res.end(object.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/object`, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('downloads in byte ranges', () => {
  // Three ranges of 32, 32 and 6 MiB.
  const object = randomBytes(70 * MiB);
  const expected = { sha256: createHash('sha256').update(object).digest('hex'), size: object.length };
  const once = { retry: { ...DEFAULT_RETRY, attempts: 1 } };
  let store: Awaited<ReturnType<typeof rangeStore>>;
  let dir: string;
  beforeAll(async () => {
    store = await rangeStore(object);
    dir = await mkdtemp(path.join(tmpdir(), 'lode-ranged-'));
  });
  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const reset = () => {
    store.state.honourRange = true;
    store.state.cut.clear();
    store.state.starts = [];
    store.state.expired.clear();
  };

  it('resumes an interrupted download from the ranges on disk, fetching only the others', async () => {
    reset();
    const dest = path.join(dir, 'resumed.bin');
    const partial = resumablePaths(dest, expected.sha256);
    store.state.cut.add(32 * MiB);
    await expect(downloadInRanges('resumed.bin', store.url, dest, expected, once)).rejects.toThrow();
    expect(JSON.parse(await readFile(partial.ranges, 'utf8'))).toMatchObject({
      ...expected,
      held: [
        [0, 1],
        [2, 3],
      ],
    });
    expect((await readdir(dir)).every(isPartialDownload)).toBe(true);

    store.state.cut.clear();
    store.state.starts = [];
    let bytes = 0;
    let parts = 0;
    const outcome = await downloadInRanges('resumed.bin', store.url, dest, expected, { ...once, onBytes: (n) => (bytes += n), onPart: () => parts++ });
    expect(outcome).toEqual({ ranges: 3, resumed: 2 });
    expect(store.state.starts).toEqual([32 * MiB]);
    expect(bytes).toBe(object.length);
    expect(parts).toBe(3);
    expect((await readFile(dest)).equals(object)).toBe(true);
    expect(await readdir(dir)).toEqual(['resumed.bin']);
  });

  it('fetches every range once, several at once, and leaves nothing beside the file', async () => {
    reset();
    const dest = path.join(dir, 'fresh.bin');
    expect(await downloadInRanges('fresh.bin', store.url, dest, expected, once)).toEqual({ ranges: 3, resumed: 0 });
    expect([...store.state.starts].sort((a, b) => a - b)).toEqual([0, 32 * MiB, 64 * MiB]);
    expect((await readFile(dest)).equals(object)).toBe(true);
    expect((await readdir(dir)).filter(isPartialDownload)).toEqual([]);
  });

  it('asks for a fresh URL once when the store refuses the URL as expired', async () => {
    reset();
    store.state.expired.add('stale');
    let refreshes = 0;
    const dest = path.join(dir, 'renewed.bin');
    const refreshUrl = async () => {
      refreshes++;
      return `${store.url}?gen=fresh`;
    };
    expect(await downloadInRanges('renewed.bin', `${store.url}?gen=stale`, dest, expected, { ...once, refreshUrl })).toEqual({ ranges: 3, resumed: 0 });
    expect(refreshes).toBe(1);
    expect((await readFile(dest)).equals(object)).toBe(true);
  });

  it('reads a store that answers a Range with the whole object as one stream', async () => {
    reset();
    store.state.honourRange = false;
    const dest = path.join(dir, 'whole.bin');
    expect(await downloadInRanges('whole.bin', store.url, dest, expected, once)).toEqual({ ranges: 1, resumed: 0 });
    expect(store.state.starts).toEqual([0]);
    expect((await readFile(dest)).equals(object)).toBe(true);
  });

  it('removes the partial state and fails when the bytes do not match, so that a retry starts clean', async () => {
    reset();
    const dest = path.join(dir, 'wrong.bin');
    const wrong = { ...expected, sha256: 'f'.repeat(64) };
    await expect(downloadInRanges('wrong.bin', store.url, dest, wrong, once)).rejects.toThrow(/do not match.*partial download was removed/);
    expect((await readdir(dir)).filter((n) => n.includes('wrong.bin'))).toEqual([]);
  });

  it("removes another content's partial state for the same destination", async () => {
    reset();
    const dest = path.join(dir, 'older.bin');
    const older = resumablePaths(dest, 'e'.repeat(64));
    await writeFile(older.data, 'old bytes');
    await writeFile(older.ranges, '{}');
    await writeFile(path.join(dir, '.older.bin.txt'), 'not ours');
    await downloadInRanges('older.bin', store.url, dest, expected, once);
    expect((await readdir(dir)).filter((n) => n.includes('older'))).toEqual(['.older.bin.txt', 'older.bin']);
  });

  it('names partial state so that a workspace scan tells it apart, within a file name’s length', () => {
    const paths = resumablePaths(path.join(dir, 'Levels/Forest.umap'), expected.sha256);
    expect(path.basename(paths.data)).toBe(`.Forest.umap.${expected.sha256.slice(0, 16)}.lode-partial`);
    expect(isPartialDownload(path.basename(paths.data))).toBe(true);
    expect(isPartialDownload(path.basename(paths.ranges))).toBe(true);
    expect(isPartialDownload('Forest.umap')).toBe(false);
    const long = resumablePaths(path.join(dir, `${'é'.repeat(120)}.bin`), expected.sha256);
    expect(Buffer.byteLength(path.basename(long.ranges))).toBeLessThanOrEqual(255);
    expect(isPartialDownload(path.basename(long.ranges))).toBe(true);
  });
});
