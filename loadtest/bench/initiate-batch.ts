/**
 * Benchmark: 1,000-entry initiate-batch through the gateway, NATS and the upload service with the
 * S3 driver (the machine's Swift s3api), as in issue 3. Prints time per batch (p50, p99, mean).
 * Data setup (org, project, key) is excluded from the timings.
 *
 *   npm run bench:initiate-batch [-- --batches 30]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { describeContent, startTestStack } from '@lode/testkit';
import { summarize } from './stats.ts';

const { values } = parseArgs({ options: { batches: { type: 'string', default: '30' }, storage: { type: 'string', default: 's3' } } });
const batches = Number(values.batches);
const storage = values.storage === 'local' ? 'local' : 's3';

const stack = await startTestStack({ bus: 'nats', storage });
try {
  const p = await stack.seed.project();
  const content = describeContent(randomBytes(1024));
  const timings: number[] = [];
  for (let b = 0; b < batches + 3; b++) {
    // Fresh paths every batch: each entry upserts a file and reserves a version.
    const files = Array.from({ length: 1000 }, (_, i) => ({ path: `bench/${b}/${i}.bin`, ...content, sha256: randomBytes(32).toString('hex') }));
    const started = performance.now();
    const res = await p.api.post<{ results: unknown[] }>(`/api/v1/projects/${p.projectId}/files/upload/initiate-batch`, { files });
    const elapsed = performance.now() - started;
    if (res.status !== 200 || res.body.results.length !== 1000) throw new Error(`batch failed: ${res.status}`);
    if (b >= 3) timings.push(elapsed); // the first batches warm the JIT and connection pools
  }
  const { p50, line } = summarize(timings);
  console.log(`initiate-batch x1000 (${storage}, NATS): ${batches} batches  ${line}  (${(1000 / (p50 / 1000)).toFixed(0)} entries/s at p50)`);
} finally {
  await stack.stop();
}
