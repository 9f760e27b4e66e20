/**
 * Benchmark: lock and unlock of one file through the gateway, NATS and the lock service (which asks
 * the upload service for the file's path on every lock), as in issue 5. Each round trip is a POST
 * /locks then a DELETE /locks, one after the other. Prints time per round trip and per request
 * (p50, p99, mean) and round trips per second. Data setup is excluded from the timings.
 *
 *   npm run bench:locks [-- --rounds 500]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pushFile, startTestStack, type ApiResponse } from '@lode/testkit';
import { summarize } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '500' } } });
const rounds = Number(values.rounds);
const WARMUP = 20;

const stack = await startTestStack({ bus: 'nats' });
try {
  const p = await stack.seed.project();
  const { fileId } = await pushFile(p.api, p.projectId, 'bench/level.umap', randomBytes(1024));
  const locks = `/api/v1/projects/${p.projectId}/locks`;
  const timed = async (request: () => Promise<ApiResponse<Record<string, unknown[]>>>, list: string): Promise<number> => {
    const started = performance.now();
    const res = await request();
    const elapsed = performance.now() - started;
    if (res.status !== 200 || res.body[list]?.length !== 1) throw new Error(`lock request failed: ${res.status} ${JSON.stringify(res.body)}`);
    return elapsed;
  };
  const lockTimes: number[] = [];
  const unlockTimes: number[] = [];
  for (let round = 0; round < rounds + WARMUP; round++) {
    const locked = await timed(() => p.api.post(locks, { fileIds: [fileId], note: 'bench' }), 'acquired');
    const unlocked = await timed(() => p.api.delete(locks, { fileIds: [fileId] }), 'released');
    if (round < WARMUP) continue; // the first rounds warm the JIT and connection pools
    lockTimes.push(locked);
    unlockTimes.push(unlocked);
  }
  const roundTrips = lockTimes.map((t, i) => t + unlockTimes[i]);
  const perSecond = rounds / (roundTrips.reduce((a, b) => a + b, 0) / 1000);
  console.log(`lock+unlock of one file (NATS): ${rounds} round trips  ${summarize(roundTrips).line}  ${perSecond.toFixed(0)} round trips/s`);
  console.log(`  POST /locks    ${summarize(lockTimes).line}`);
  console.log(`  DELETE /locks  ${summarize(unlockTimes).line}`);
} finally {
  await stack.stop();
}
