import { randomBytes } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
// The bench runs on plain Node, where @lode/sdk resolves to its build: take the sources, as the CLI's bin does in the repo.
import {
  chunk,
  createLimiter,
  downloadToFile,
  hashFile,
  LodeClient,
  MAX_BATCH,
  putFile,
  type DownloadResult,
  type LocalFile,
  type UploadForm,
} from '../../../clients/sdk/src/index.ts';
import { BENCH_WRITE_LIMIT } from '../deployment.ts';
import { timed } from '../load.ts';
import { PUT_OBJECT } from './hops.ts';
import type { BenchContext, ScenarioResult } from './scenario.ts';

/** Bare storage's transfers at a time: the floor every client's transfers are compared with. */
export const BARE_IN_FLIGHT = 16;
const MiB = 1024 * 1024;

/** A fresh project each time: content a project already holds would be deduplicated, not moved. */
export async function benchProject(ctx: BenchContext) {
  const seeded = await ctx.deployment.seeder.project({ writeRateLimit: BENCH_WRITE_LIMIT });
  return { seeded, api: new LodeClient({ url: ctx.deployment.baseUrl, key: seeded.key, deviceId: seeded.deviceId, projectId: seeded.projectId }) };
}

/**
 * Random files under `dir`: `count` of `bytes` as data/f<i>.bin, then one of `big` bytes as big.bin
 * when given, each hashed for its upload URL. Written in 64 MiB pieces, so a large file is never
 * held whole in memory.
 */
export async function writeBenchFiles(dir: string, count: number, bytes: number, big = 0): Promise<LocalFile[]> {
  await mkdir(path.join(dir, 'data'), { recursive: true });
  const sizes = [...Array.from({ length: count }, () => bytes), ...(big > 0 ? [big] : [])];
  const files: LocalFile[] = [];
  for (const [i, size] of sizes.entries()) {
    const name = i < count ? `data/f${i}.bin` : 'big.bin';
    const localPath = path.join(dir, name);
    const handle = await open(localPath, 'w');
    for (let written = 0; written < size; written += 64 * MiB) await handle.write(randomBytes(Math.min(64 * MiB, size - written)));
    await handle.close();
    files.push({ path: name, localPath, digest: await hashFile(localPath) });
  }
  return files;
}

/** Bare storage: presigned PUTs of the files (URLs fetched beforehand, untimed), BARE_IN_FLIGHT at a time, no confirm. */
export async function barePuts(api: LodeClient, files: LocalFile[]): Promise<number> {
  const forms: UploadForm[] = [];
  for (const batch of chunk(files, MAX_BATCH)) {
    const results = await api.initiateBatch(batch.map((f) => ({ path: f.path, sha256: f.digest.sha256, size: f.digest.size, contentMd5: f.digest.md5 })));
    for (const r of results) if ('uploadUrl' in r) forms.push(r);
  }
  if (forms.length !== files.length) throw new Error(`bare PUTs: ${forms.length} of ${files.length} files got an upload URL`);
  const limit = createLimiter(BARE_IN_FLIGHT);
  return timed(() =>
    Promise.all(
      forms.map((form, i) => limit(() => putFile(form.path, form.uploadUrl, form.requiredHeaders, files[i].localPath, { retry: api.transport.retry }))),
    ),
  );
}

/** Bare storage: presigned GETs of the committed files (URLs fetched beforehand, untimed), BARE_IN_FLIGHT at a time. */
export async function bareGets(api: LodeClient, files: LocalFile[], dir: string): Promise<number> {
  const urls: DownloadResult[] = [];
  for (const batch of chunk(files, MAX_BATCH)) urls.push(...(await api.downloadUrls(batch.map((f) => ({ path: f.path })))));
  const limit = createLimiter(BARE_IN_FLIGHT);
  return timed(() =>
    Promise.all(
      urls.map((u, i) => {
        if (!('downloadUrl' in u)) throw new Error(`bare GETs: ${u.code}`);
        return limit(() => downloadToFile(u.path, u.downloadUrl, path.join(dir, `${i}.bin`), u, { retry: api.transport.retry }));
      }),
    ),
  );
}

/** `ms` and `rawMs` of one round, or the medians of `rounds`. */
export function transferResult(ctx: BenchContext, name: string, ms: number, rawMs: number, bytes: number, files: number, rounds = 1): ScenarioResult {
  const ratio = rawMs / ms;
  return {
    name,
    p50Ms: ms,
    p99Ms: ms,
    opsPerSec: files / (ms / 1000),
    legs: ctx.legs(PUT_OBJECT),
    note: `${rounds === 1 ? 'one round' : `medians of ${rounds} rounds`}, ${(bytes / MiB / (ms / 1000)).toFixed(0)} MiB/s, ${ratio.toFixed(2)}× bare storage (${(rawMs / 1000).toFixed(2)} s)`,
  };
}
