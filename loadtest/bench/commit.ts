/**
 * Benchmark: commits through the gateway, NATS, the commit service (and its one resolve call to the
 * upload service), as in issue 4: a 1-file commit and a 25,000-file commit. Confirmed versions are
 * seeded in bulk beforehand and excluded from the timings. Prints time per commit (p50, p99, mean).
 *
 *   npm run bench:commit [-- --small 200 --large 5]
 */
import { parseArgs } from 'node:util';
import { commit } from '@lode/contracts';
import { seedConfirmedVersions, startTestStack, type BulkVersion, type SeededProject } from '@lode/testkit';
import { summarize } from './stats.ts';

const { values } = parseArgs({ options: { small: { type: 'string', default: '200' }, large: { type: 'string', default: '5' } } });
const WARMUP = 2;

const stack = await startTestStack({ bus: 'nats' });
try {
  const p = await stack.seed.project();
  const timeCommits = async (rounds: number, filesPerCommit: number) => {
    const timings: number[] = [];
    for (let round = 0; round < rounds + WARMUP; round++) {
      const files = await seedConfirmedVersions(stack.databaseUrl, p, filesPerCommit);
      const elapsed = await timedCommit(p, files);
      if (round >= WARMUP) timings.push(elapsed);
    }
    return summarize(timings);
  };
  const small = await timeCommits(Number(values.small), 1);
  console.log(`commit x1 file (NATS): ${values.small} commits  ${small.line}`);
  const large = await timeCommits(Number(values.large), commit.MAX_COMMIT_ENTRIES);
  console.log(`commit x25,000 files (NATS): ${values.large} commits  ${large.line}  (${(commit.MAX_COMMIT_ENTRIES / (large.p50 / 1000)).toFixed(0)} files/s at p50)`);
} finally {
  await stack.stop();
}

async function timedCommit(p: SeededProject, files: BulkVersion[]): Promise<number> {
  const body = { message: 'bench', fileVersions: files.map((f) => ({ fileId: f.fileId, version: f.version, action: 'add' })) };
  const started = performance.now();
  const res = await p.api.post(`/api/v1/projects/${p.projectId}/commits`, body);
  const elapsed = performance.now() - started;
  if (res.status !== 201) throw new Error(`commit failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return elapsed;
}
