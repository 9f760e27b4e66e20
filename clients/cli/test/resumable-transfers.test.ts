import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStorage, storageSettings, type BlobStorage } from '@lode/storage';
import { peakRssBytes, type SeededProject } from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '@lode/system/testing';
import { resumablePaths } from '@lode/sdk';
import { CliUser, collect } from './cli-runner.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** The SDK's part size up to 156 GiB, and its range size up to 312 GiB. */
const PART = 16 * MiB;
const RANGE = 32 * MiB;

/**
 * A file of `size` bytes, sparse: zeros but for each MiB's index stamped at its start, so that a piece
 * out of place cannot go unnoticed while the disk writes a few bytes per MiB (the transfers write
 * the rest). Answers its SHA-256, computed from the same bytes in memory.
 */
async function writeContent(file: string, size: number): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  const sha = createHash('sha256');
  const handle = await open(file, 'w');
  try {
    await handle.truncate(size);
    const chunk = Buffer.alloc(MiB);
    for (let i = 0; i * MiB < size; i++) {
      chunk.writeUInt32BE(i, 0);
      const piece = chunk.subarray(0, Math.min(MiB, size - i * MiB));
      sha.update(piece);
      await handle.write(piece, 0, Math.min(4, piece.length), i * MiB);
    }
  } finally {
    await handle.close();
  }
  return sha.digest('hex');
}

async function sha256Of(file: string): Promise<string> {
  const sha = createHash('sha256');
  await pipeline(createReadStream(file), sha);
  return sha.digest('hex');
}

/** Peak resident memory of a running process, read until it exits (VmHWM only grows). */
function watchPeak(pid: number): { stop: () => number } {
  let peak = 0;
  const read = () =>
    peakRssBytes(pid).then(
      (bytes) => (peak = Math.max(peak, bytes)),
      () => undefined,
    );
  const timer = setInterval(() => void read(), 100);
  void read();
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/** Polls until `ready` holds, however long the machine takes; the test's own timeout bounds it. */
async function until(ready: () => Promise<boolean>): Promise<void> {
  while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The parts the store holds of the one open multipart upload, 0 while there is none. */
async function heldParts(storage: BlobStorage): Promise<number> {
  for await (const page of storage.listMultipartUploads(new Date(Date.now() + 3600_000))) {
    for (const upload of page) return (await storage.listParts(upload.key, upload.uploadId))?.length ?? 0;
  }
  return 0;
}

/** The ranges a download's record says are on disk. */
async function heldRanges(recordFile: string): Promise<number> {
  const text = await readFile(recordFile, 'utf8').catch(() => '');
  if (text === '') return 0;
  const { held } = JSON.parse(text) as { held: [number, number][] };
  return held.reduce((sum, [from, to]) => sum + to - from, 0);
}

describe.each(['local', 's3'] as const)('large files through the CLI, resumably (%s storage)', (storageDriver) => {
  let stack: ProcessStack;
  let storage: BlobStorage;
  let p: SeededProject;
  let user: CliUser;
  let dir: string;

  beforeAll(async () => {
    stack = await startProcessStack({ storage: storageDriver });
    storage = createStorage(z.object(storageSettings).parse(stack.env));
    p = await stack.seed.project();
    user = await CliUser.create(stack.baseUrl, p);
    dir = await mkdtemp(path.join(tmpdir(), 'lode-resumable-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  const serverPeaks = async () => ({
    gateway: await peakRssBytes(stack.processes.gateway.child.pid!),
    upload: await peakRssBytes(stack.processes.upload.child.pid!),
  });

  it('resumes a 1 GiB push and a 1 GiB pull killed half-way, moving only what is missing, with memory flat', async () => {
    const size = GiB;
    const parts = size / PART;
    const ranges = size / RANGE;
    const pushed = path.join(dir, 'push');
    const sha256 = await writeContent(path.join(pushed, 'Cinematics/trailer.mov'), size);
    expect((await user.run(pushed, ['init'])).code).toBe(0);
    const before = await serverPeaks();

    // One transfer at a time, so that half the parts are stored well before the last is sent.
    const first = user.spawn(pushed, ['push', '-m', 'Trailer', '--json', '--concurrency', '1']);
    const firstPeak = watchPeak(first.pid!);
    await until(async () => (await heldParts(storage)) >= parts / 2);
    first.kill('SIGKILL');
    await once(first, 'close');
    const held = await heldParts(storage);
    expect(held).toBeGreaterThanOrEqual(parts / 2);
    expect(held).toBeLessThan(parts);

    const second = user.spawn(pushed, ['push', '-m', 'Trailer', '--json']);
    const secondPeak = watchPeak(second.pid!);
    const resumed = await collect(second);
    expect(resumed.code, resumed.stderr).toBe(0);
    // A part whose body was all sent before the kill may still land after the listing above.
    expect(resumed.json.partsResumed).toBeGreaterThanOrEqual(held);
    expect(resumed.json.partsResumed).toBeLessThan(parts);
    expect(resumed.json.partsUploaded).toBe(parts - resumed.json.partsResumed);
    expect(await heldParts(storage)).toBe(0);

    const pulled = path.join(dir, 'pull');
    await mkdir(pulled);
    expect((await user.run(pulled, ['init'])).code).toBe(0);
    const record = resumablePaths(path.join(pulled, 'Cinematics/trailer.mov'), sha256).ranges;
    const pull = user.spawn(pulled, ['pull', '--json', '--concurrency', '1']);
    const pullPeak = watchPeak(pull.pid!);
    await until(async () => (await heldRanges(record)) >= ranges / 2);
    pull.kill('SIGKILL');
    await once(pull, 'close');
    const onDisk = await heldRanges(record);
    expect(onDisk).toBeLessThan(ranges);

    const again = user.spawn(pulled, ['pull', '--json']);
    const againPeak = watchPeak(again.pid!);
    const finished = await collect(again);
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.json).toMatchObject({ partsResumed: onDisk, partsDownloaded: ranges - onDisk });
    expect(await sha256Of(path.join(pulled, 'Cinematics/trailer.mov'))).toBe(sha256);

    // Every process stays far below the file's size: nothing holds it, each streams it in pieces.
    const cliPeaks = [firstPeak.stop(), secondPeak.stop(), pullPeak.stop(), againPeak.stop()];
    for (const peak of cliPeaks) expect(peak).toBeLessThan(size / 4);
    const after = await serverPeaks();
    expect(after.gateway - before.gateway).toBeLessThan(size / 4);
    expect(after.upload - before.upload).toBeLessThan(size / 4);
  }, 900_000);

  // Above 5 GiB only byte offsets past 32 bits are new, while moving 6 GiB four times over holds the
  // disk for long: it runs on request (LODE_HUGE_FILE_TEST=1), not in every `npm test`.
  it.runIf(storageDriver === 'local' && process.env.LODE_HUGE_FILE_TEST === '1')(
    'moves a 6 GiB file, above the single PUT limit, up and back byte for byte',
    async () => {
      const size = 6 * GiB + 12345;
      const pushed = path.join(dir, 'huge-push');
      const sha256 = await writeContent(path.join(pushed, 'Builds/game.pak'), size);
      expect((await user.run(pushed, ['init'])).code).toBe(0);
      const push = await user.run(pushed, ['push', '-m', 'Packaged build', '--json']);
      expect(push.code, push.stderr).toBe(0);
      expect(push.json).toMatchObject({ partsUploaded: Math.ceil(size / PART), partsResumed: 0 });
      await rm(pushed, { recursive: true, force: true });

      const pulled = path.join(dir, 'huge-pull');
      await mkdir(pulled);
      expect((await user.run(pulled, ['init'])).code).toBe(0);
      const pull = await user.run(pulled, ['pull', '--json', 'Builds/game.pak']);
      expect(pull.code, pull.stderr).toBe(0);
      expect(await sha256Of(path.join(pulled, 'Builds/game.pak'))).toBe(sha256);
      await rm(pulled, { recursive: true, force: true });
    },
    1_800_000,
  );
});
