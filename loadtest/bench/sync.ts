/**
 * Benchmark: one client syncs a workspace against a project of 100,000 committed files, through the
 * gateway, NATS and the sync service, as in issue 6: batches of 10,000 in one session,
 * includeRemoteOnly on the last. 1% of the local files are edited and 1% are missing locally, so
 * the answer holds modified and missing rows too. The files are seeded in bulk and committed
 * through the gateway in 4 commits of 25,000 beforehand, outside the timings. Prints the time per
 * full sync (p50, p99, mean) and files/s, with the batches sent one after another and then
 * `--parallel` at a time (the last still waits for the others).
 *
 *   npm run bench:sync [-- --rounds 10 --parallel 4 --bus local]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { commit, sync } from '@lode/contracts';
import { seedConfirmedVersions, startTestStack, type BulkVersion, type SeededProject } from '@lode/testkit';
import { summarize } from './stats.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '10' }, parallel: { type: 'string', default: '4' }, bus: { type: 'string', default: 'nats' } },
});
const bus = values.bus === 'local' ? 'local' : 'nats';
const FILES = 100_000;
const WARMUP = 2;

const stack = await startTestStack({ bus, syncCatchUpMs: 25_000 });
try {
  const p = await stack.seed.project();
  const remote: BulkVersion[] = [];
  for (let i = 0; i < FILES / commit.MAX_COMMIT_ENTRIES; i++) {
    const files = await seedConfirmedVersions(stack.databaseUrl, p, commit.MAX_COMMIT_ENTRIES, `part-${i}`);
    const res = await p.api.post(`/api/v1/projects/${p.projectId}/commits`, {
      message: `seed ${i}`,
      fileVersions: files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' })),
    });
    if (res.status !== 201) throw new Error(`commit failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    remote.push(...files);
  }
  const local = remote.filter((_, i) => i % 100 !== 0).map((f, i) => ({ path: f.path, sha256: i % 100 === 1 ? 'f'.repeat(64) : f.sha256 }));
  const batches = Array.from({ length: Math.ceil(local.length / sync.MAX_SYNC_BATCH) }, (_, i) => local.slice(i * sync.MAX_SYNC_BATCH, (i + 1) * sync.MAX_SYNC_BATCH));

  const time = async (parallel: number) => {
    const timings: number[] = [];
    for (let round = 0; round < Number(values.rounds) + WARMUP; round++) {
      const started = performance.now();
      const rows = await fullSync(p, batches, parallel);
      const elapsed = performance.now() - started;
      if (rows !== FILES) throw new Error(`a full sync answered ${rows} rows, not ${FILES}`);
      if (round >= WARMUP) timings.push(elapsed);
    }
    const stats = summarize(timings);
    return `${stats.line}  (${(FILES / (stats.p50 / 1000)).toFixed(0)} files/s at p50)`;
  };
  console.log(`sync x100,000 files in ${batches.length} batches, one at a time (${bus} bus): ${values.rounds} syncs  ${await time(1)}`);
  console.log(`sync x100,000 files in ${batches.length} batches, ${values.parallel} at a time (${bus} bus): ${values.rounds} syncs  ${await time(Number(values.parallel))}`);
} finally {
  await stack.stop();
}

/** Every batch but the last, `parallel` at a time, then the last with includeRemoteOnly; returns the rows received. */
async function fullSync(p: SeededProject, batches: { path: string; sha256: string }[][], parallel: number): Promise<number> {
  const id = randomUUID();
  const send = async (batch: number, includeRemoteOnly: boolean) => {
    const res = await p.api.post<{ files: unknown[] }>(`/api/v1/projects/${p.projectId}/sync`, { files: batches[batch], session: { id, batch }, includeRemoteOnly });
    if (res.status !== 200) throw new Error(`sync failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body.files.length;
  };
  let rows = 0;
  let next = 0;
  const last = batches.length - 1;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < last) {
        const received = await send(next++, false);
        rows += received;
      }
    }),
  );
  return rows + (await send(last, true));
}
