/**
 * Benchmark: a 1,000-file restore through the gateway, NATS, the restore service and its calls to
 * the upload service (resolve, then make the versions after a storage HEAD per object) and the
 * commit service (main's tree, then the restore commit), as in issue 7; target ≤ 1 s. Each round
 * restores 1,000 files that were committed and then deleted, seeded beforehand with their objects on
 * the local driver and excluded from the timings. Prints time per restore (p50, p99, mean).
 *
 *   npm run bench:restore [-- --rounds 20 --files 1000]
 */
import { parseArgs } from 'node:util';
import type { restore } from '@lode/contracts';
import { seedConfirmedVersions, startTestStack, writeBulkBlobs, type BulkVersion, type SeededProject } from '@lode/testkit';
import { summarize } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' }, files: { type: 'string', default: '1000' } } });
const WARMUP = 2;
const filesPerRestore = Number(values.files);

const stack = await startTestStack({ bus: 'nats' });
try {
  const p = await stack.seed.project();
  const timings: number[] = [];
  for (let round = 0; round < Number(values.rounds) + WARMUP; round++) {
    const files = await seedConfirmedVersions(stack.databaseUrl, p, filesPerRestore);
    await writeBulkBlobs(stack.storage, files);
    await commit(p, files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' })));
    await commit(p, files.map((f) => ({ fileId: f.fileId, action: 'delete' })));
    const elapsed = await timedRestore(p, files);
    if (round >= WARMUP) timings.push(elapsed);
  }
  const stats = summarize(timings);
  console.log(`restore x${filesPerRestore} files (NATS): ${values.rounds} restores  ${stats.line}  (${(filesPerRestore / (stats.p50 / 1000)).toFixed(0)} files/s at p50)`);
} finally {
  await stack.stop();
}

async function commit(p: SeededProject, fileVersions: object[]): Promise<void> {
  const res = await p.api.post(`/api/v1/projects/${p.projectId}/commits`, { message: 'bench setup', fileVersions });
  if (res.status !== 201) throw new Error(`setup commit failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
}

async function timedRestore(p: SeededProject, files: BulkVersion[]): Promise<number> {
  const body = { files: files.map((f) => ({ fileId: f.fileId, toVersion: f.version })) };
  const started = performance.now();
  const res = await p.api.post<restore.RestoreResult>(`/api/v1/projects/${p.projectId}/restore`, body);
  const elapsed = performance.now() - started;
  if (res.status !== 200 || res.body.restored.length !== files.length) throw new Error(`restore failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return elapsed;
}
