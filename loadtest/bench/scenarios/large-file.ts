import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// The bench runs on plain Node, where @lode/sdk resolves to its build: take the sources, as the CLI's bin does in the repo.
import { commitFiles, downloadFiles, hashFile, uploadFiles, type LocalFile } from '../../../clients/sdk/src/index.ts';
import { timed } from '../load.ts';
import { bareGets, barePuts, benchProject, transferResult, writeBenchFiles } from './bare-transfers.ts';
import type { Scenario } from './scenario.ts';

const MiB = 1024 * 1024;
/** What the SDK and CLI move in parts and ranges by default, and how many at once. */
const THRESHOLD = 64 * MiB;
const IN_FLIGHT = 4;

/**
 * One large file both ways, each way as a ratio to bare storage moving it in the same run (one
 * presigned PUT, one presigned GET, no Lode call): up as a single PUT and in parts with 4 in flight
 * (hashed beforehand, as the CLI's cache has it; initiate, PUTs, confirm with its read-back on S3),
 * down in 1 and in 4 ranges (download URL, GETs, the whole file's SHA-256 before the rename).
 */
export const largeFile: Scenario = {
  name: 'large-file',
  async run(ctx) {
    const size = ctx.profile.name === 'quick' ? 256 * MiB : 1024 * MiB;
    const label = `${size / MiB}MiB`;
    const dir = await mkdtemp(path.join(tmpdir(), 'lode-bench-large-'));
    try {
      const [whole] = await writeBenchFiles(path.join(dir, 'push'), 0, 0, size);
      const inParts: LocalFile = { ...whole, digest: await hashFile(whole.localPath, undefined, size, { multipartThreshold: THRESHOLD }) };
      ctx.log(`large-file ${label}: bare PUT`);
      const rawPut = await barePuts((await benchProject(ctx)).api, [whole]);
      const upload = async (file: LocalFile, threshold: number) => {
        const { api } = await benchProject(ctx);
        let confirmed: Awaited<ReturnType<typeof uploadFiles>> | undefined;
        const ms = await timed(async () => {
          confirmed = await uploadFiles(api, [file], { multipartThreshold: threshold, partsInFlight: IN_FLIGHT });
        });
        if (confirmed?.done.length !== 1) throw new Error(`large-file upload: ${JSON.stringify(confirmed?.failures)}`);
        return { api, ms, uploaded: confirmed.done[0] };
      };
      ctx.log(`large-file ${label}: single PUT`);
      const single = await upload(whole, Number.POSITIVE_INFINITY);
      ctx.log(`large-file ${label}: ${IN_FLIGHT} parts in flight`);
      const parted = await upload(inParts, THRESHOLD);

      const { api, uploaded } = parted;
      const commit = { message: 'bench', fileVersions: [{ fileId: uploaded.fileId, action: 'add' as const, version: uploaded.version }] };
      await commitFiles(api, commit, { idempotencyKey: randomUUID() });
      ctx.log(`large-file ${label}: bare GET`);
      await mkdir(path.join(dir, 'raw'));
      const rawGet = await bareGets(api, [whole], path.join(dir, 'raw'));
      const download = async (ranges: number) => {
        const dest = path.join(dir, `pull-${ranges}`, whole.path);
        const ms = await timed(async () => {
          const pulled = await downloadFiles(api, [{ fileId: uploaded.fileId, dest }], { multipartThreshold: THRESHOLD, partsInFlight: ranges });
          if (pulled.done.length !== 1) throw new Error(`large-file download: ${JSON.stringify(pulled.failures)}`);
        });
        await rm(path.dirname(dest), { recursive: true, force: true });
        return ms;
      };
      ctx.log(`large-file ${label}: 1 range`);
      const oneRange = await download(1);
      ctx.log(`large-file ${label}: ${IN_FLIGHT} ranges`);
      const fourRanges = await download(IN_FLIGHT);
      return [
        transferResult(ctx, `large-put-single-${label}`, single.ms, rawPut, size, 1),
        transferResult(ctx, `large-put-parts-${IN_FLIGHT}-${label}`, parted.ms, rawPut, size, 1),
        transferResult(ctx, `large-get-ranges-1-${label}`, oneRange, rawGet, size, 1),
        transferResult(ctx, `large-get-ranges-${IN_FLIGHT}-${label}`, fourRanges, rawGet, size, 1),
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
