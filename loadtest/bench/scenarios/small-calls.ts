import { randomBytes } from 'node:crypto';
import { alternatingThroughput, closedLoop, latencyAndThroughput, serial, timed } from '../load.ts';
import { addAll, pushFiles } from '../push.ts';
import { latencies } from '../stats.ts';
import { LIST_VERSIONS, LOCK, UNLOCK, VALIDATE_KEY } from './hops.ts';
import type { Scenario, Target } from './scenario.ts';
import { SMALL_CALL_P50 } from './targets.ts';

/**
 * POST /auth/validate-key: the cheapest authenticated call, the gateway alone. Its throughput target
 * is relative to bare express, so the two are measured in alternating windows, not minutes apart.
 */
export const validateKey: Scenario = {
  name: 'validate-key',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { small } = ctx.profile;
    const call = async () => {
      await p.api.call('POST', '/api/v1/auth/validate-key', 200);
    };
    const latency = await serial({ rounds: small.samples, warmup: small.warmup, budgetMs: small.budgetMs }, () => timed(call));
    const [opsPerSec, express] = await alternatingThroughput(call, ctx.baselineCalls.express, small.loop, COMPARISON_WINDOWS);
    const target: Target = { label: '≥ 0.5× express ops/s', met: (f) => f.opsPerSec >= 0.5 * express };
    return [
      {
        name: 'validate-key',
        p50Ms: latency.p50Ms,
        p99Ms: latency.p99Ms,
        opsPerSec,
        legs: ctx.legs(VALIDATE_KEY),
        note: `${small.loop.inFlight} in flight; bare express alongside: ${Math.round(express).toLocaleString('en-US')} ops/s (${(opsPerSec / express).toFixed(2)}×)`,
        targets: [target, SMALL_CALL_P50],
      },
    ];
  },
};

/** Windows of each call in the throughput comparison. */
const COMPARISON_WINDOWS = 5;

/**
 * POST /locks then DELETE /locks of one file, for latency one after another, then a closed loop in
 * which each worker locks and unlocks a file of its own: each row's ops/s is its own calls per second
 * while the other call runs interleaved with it.
 */
export const lockUnlock: Scenario = {
  name: 'lock-unlock',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { small } = ctx.profile;
    const files = await ctx.fixtures.confirmed(p, small.loop.inFlight, { objects: false });
    const locks = `/api/v1/projects/${p.projectId}/locks`;
    const lock = (fileId: string) => p.api.call('POST', locks, 200, { fileIds: [fileId], note: 'bench' });
    const unlock = (fileId: string) => p.api.call('DELETE', locks, 200, { fileIds: [fileId] });
    const lockTimes: number[] = [];
    const unlockTimes: number[] = [];
    await serial({ rounds: small.samples, warmup: small.warmup, budgetMs: small.budgetMs }, async (i) => {
      const locked = await timed(() => lock(files[0].fileId));
      const unlocked = await timed(() => unlock(files[0].fileId));
      if (i >= small.warmup) {
        lockTimes.push(locked);
        unlockTimes.push(unlocked);
      }
      return locked + unlocked;
    });
    const loop = await closedLoop(async (worker) => {
      await lock(files[worker].fileId);
      await unlock(files[worker].fileId);
    }, small.loop);
    const note = `${small.loop.inFlight} in flight, lock and unlock alternating`;
    return [
      { name: 'lock', ...latencies(lockTimes), opsPerSec: loop.opsPerSec, legs: ctx.legs(LOCK), note, targets: [SMALL_CALL_P50] },
      { name: 'unlock', ...latencies(unlockTimes), opsPerSec: loop.opsPerSec, legs: ctx.legs(UNLOCK), note, targets: [SMALL_CALL_P50] },
    ];
  },
};

/** GET /files/{id}/versions: the first page (up to 50) of a file with `versions.count` committed versions. */
export const listVersions: Scenario = {
  name: 'versions',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { small, versions } = ctx.profile;
    let fileId = '';
    for (let v = 0; v < versions.count; v++) {
      const pushed = await pushFiles(p.api, ctx.http, p.projectId, [{ path: 'bench/history.umap', bytes: randomBytes(1024) }], 1);
      await p.api.call('POST', `/api/v1/projects/${p.projectId}/commits`, 201, addAll(pushed));
      fileId = pushed[0].fileId;
    }
    const path = `/api/v1/projects/${p.projectId}/files/${fileId}/versions`;
    const figures = await latencyAndThroughput(async () => {
      const page = await p.api.call<{ data: unknown[] }>('GET', path, 200);
      if (page.data.length !== Math.min(50, versions.count)) throw new Error(`versions listed ${page.data.length} entries`);
    }, small);
    return [
      {
        name: 'versions',
        ...figures,
        legs: ctx.legs(LIST_VERSIONS),
        note: `${Math.min(50, versions.count)} entries, ${small.loop.inFlight} in flight`,
        targets: [SMALL_CALL_P50],
      },
    ];
  },
};
