import { randomBytes } from 'node:crypto';
import type { upload } from '@lode/contracts';
import { mapConcurrently } from '@lode/storage';
import { times } from '../legs.ts';
import { serial, timed } from '../load.ts';
import { uploadFiles, type LocalFile, type UploadedFile } from '../push.ts';
import { CONFIRM, CONFIRM_BATCH } from './hops.ts';
import type { Scenario } from './scenario.ts';

/**
 * Confirming `entries` uploaded files: in one confirm-batch, and the same count of single confirms
 * `inFlight` at a time (what a push did before confirm-batch), each round on files initiated and
 * PUT beforehand (not timed). Every object is checked (a HEAD, or its SHA-256 read back on S3), so
 * the figure includes storage.
 */
export const confirmBatch: Scenario = {
  name: 'confirm-batch',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { entries, bytes, inFlight } = ctx.profile.confirmBatch;
    const url = `/api/v1/projects/${p.projectId}/files/upload`;
    const prepare = (round: number, way: string): Promise<UploadedFile[]> => {
      // Fresh paths and distinct bytes, so nothing deduplicates.
      const files = Array.from({ length: entries }, (_, i): LocalFile => ({ path: `confirm/${way}/${round}/${i}.bin`, bytes: randomBytes(bytes) }));
      return uploadFiles(p.api, ctx.http, p.projectId, files, 16);
    };

    const batched = await serial(ctx.profile.confirmBatch, async (round) => {
      const files = await prepare(round, 'batch');
      return timed(async () => {
        const { results } = await p.api.call<{ results: upload.ConfirmResult[] }>('POST', `${url}/confirm-batch`, 200, { files: files.map((f) => f.confirm) });
        const failed = results.filter((r) => !('confirmed' in r));
        if (results.length !== entries || failed.length > 0)
          throw new Error(`confirm-batch: ${results.length} results, ${failed.length} failed: ${JSON.stringify(failed[0])}`);
      });
    });
    const singly = await serial(ctx.profile.confirmBatch, async (round) => {
      const files = await prepare(round, 'single');
      return timed(async () => {
        await mapConcurrently(files, inFlight, (f) => p.api.call('POST', `${url}/confirm`, 200, f.confirm));
      });
    });
    const storage = ctx.deployment.storage;
    const speedup = (singly.p50Ms / batched.p50Ms).toFixed(1);
    return [
      {
        name: `confirm-batch-${entries}`,
        ...batched,
        legs: ctx.legs(CONFIRM_BATCH),
        note: `${bytes / 1024} KiB files, ${storage}, ${perSecond(entries, batched.p50Ms)} files/s, ${speedup}× the single confirms, ${batched.rounds} rounds`,
      },
      {
        name: `confirm-${entries}-singly`,
        ...singly,
        legs: ctx.legs(times(Math.ceil(entries / inFlight), CONFIRM)),
        note: `${inFlight} in flight, ${storage}, ${perSecond(entries, singly.p50Ms)} files/s, ${singly.rounds} rounds`,
      },
    ];
  },
};

function perSecond(count: number, ms: number): string {
  return Math.round(count / (ms / 1000)).toLocaleString('en-US');
}
