import { randomBytes } from 'node:crypto';
import { upload } from '@lode/contracts';
import { describeContent } from '@lode/testkit';
import type { BenchProject } from '../fixtures.ts';
import { serial, timed } from '../load.ts';
import { watchRss } from '../memory.ts';
import { addAll, pushFiles, type LocalFile } from '../push.ts';
import { INITIATE_BATCH, pushHops } from './hops.ts';
import type { BenchContext, Scenario } from './scenario.ts';
import { at, p50AtMost } from './targets.ts';

/** One initiate-batch of `entries` new paths per round: each entry upserts a file and reserves a version. */
export const initiateBatch: Scenario = {
  name: 'initiate-batch',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { entries } = ctx.profile.initiateBatch;
    const content = describeContent(randomBytes(1024));
    const figures = await serial(ctx.profile.initiateBatch, async (round) => {
      // Fresh paths and a distinct SHA-256 per entry, so nothing deduplicates.
      const files = Array.from({ length: entries }, (_, i) => ({ path: `bench/${round}/${i}.bin`, ...content, sha256: randomBytes(32).toString('hex') }));
      return timed(async () => {
        const { results } = await p.api.call<{ results: unknown[] }>('POST', `/api/v1/projects/${p.projectId}/files/upload/initiate-batch`, 200, { files });
        if (results.length !== entries) throw new Error(`initiate-batch answered ${results.length} results`);
      });
    });
    return [
      {
        name: `initiate-batch-${entries}`,
        ...figures,
        legs: ctx.legs(INITIATE_BATCH),
        note: `${ctx.deployment.storage}, ${entriesPerSecond(entries, figures.p50Ms)} entries/s, ${figures.rounds} rounds`,
        targets: at(entries, 1000, p50AtMost(150)),
      },
    ];
  },
};

/** The whole client push of `files` small files per round: initiate-batch → PUT each → confirm each → commit. */
export const push: Scenario = {
  name: 'push',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { files, bytes, inFlight } = ctx.profile.push;
    const figures = await serial(ctx.profile.push, async (round) => {
      const local = Array.from({ length: files }, (_, i): LocalFile => ({ path: `push/${round}/${i}.bin`, bytes: randomBytes(bytes) }));
      return timed(() => pushAndCommit(ctx, p, local, inFlight));
    });
    return [
      {
        name: `push-${files}`,
        ...figures,
        legs: ctx.legs(pushHops(files, inFlight, upload.MAX_INITIATE_BATCH)),
        note: `${bytes / 1024} KiB files, ${inFlight} in flight, ${ctx.deployment.storage}, ${entriesPerSecond(files, figures.p50Ms)} files/s, ${figures.rounds} rounds`,
      },
    ];
  },
};

/**
 * One push of large files while the deployment's processes are watched: their memory should stay
 * flat, because the bytes go between the client and storage. On local disk the gateway does serve
 * the presigned URLs (it streams each body to disk); on S3 the upload service reads each object
 * back once, streaming, to check its SHA-256 on confirm.
 */
export const pushMemory: Scenario = {
  name: 'push-memory',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { files, mib, inFlight } = ctx.profile.pushMemory;
    const local = Array.from({ length: files }, (_, i): LocalFile => ({ path: `large/${i}.bin`, bytes: randomBytes(mib * 1024 * 1024) }));
    const watch = ctx.deployment.processes.length > 0 ? await watchRss(ctx.deployment.processes) : undefined;
    const elapsed = await timed(() => pushAndCommit(ctx, p, local, inFlight));
    const memory = (await watch?.stop()) ?? [];
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
    const header = `memory during push-${files}x${mib}MiB (${files * mib} MiB pushed, ${ctx.deployment.storage}): RSS before → peak (sampled every 20 ms) → after; the processes export no heap figure`;
    const details =
      memory.length === 0
        ? [header, '  not measured: the deployment runs elsewhere (--url)']
        : [
            header,
            ...memory.map((m) => `  ${m.name.padEnd(9)} ${mb(m.before)} → ${mb(m.peak)} → ${mb(m.after)}  (peak +${mb(m.peak - m.before)})`),
            STORAGE_PATH[ctx.deployment.storage === 'local disk' ? 'local' : 's3'],
          ];
    return [
      {
        name: `push-${files}x${mib}MiB`,
        p50Ms: elapsed,
        p99Ms: elapsed,
        opsPerSec: 1000 / elapsed,
        legs: ctx.legs(pushHops(files, inFlight, upload.MAX_INITIATE_BATCH)),
        note: `one round, ${((files * mib) / (elapsed / 1000)).toFixed(0)} MiB/s`,
        details,
      },
    ];
  },
};

const STORAGE_PATH = {
  local: '  local disk: the PUT bodies stream through the gateway to disk, so the gateway sees the bytes',
  s3: '  S3: the PUT bodies go to S3; confirm streams each object back once to hash it',
};

async function pushAndCommit(ctx: BenchContext, p: BenchProject, files: LocalFile[], inFlight: number): Promise<void> {
  const versions = await pushFiles(p.api, ctx.http, p.projectId, files, inFlight);
  await p.api.call('POST', `/api/v1/projects/${p.projectId}/commits`, 201, addAll(versions));
}

function entriesPerSecond(count: number, ms: number): string {
  return Math.round(count / (ms / 1000)).toLocaleString('en-US');
}
