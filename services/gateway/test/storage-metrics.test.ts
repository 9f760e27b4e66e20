import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetrics } from '@lode/telemetry/metrics-sdk';
import { createLogger } from '@lode/telemetry';
import { startOpsServer } from '@lode/runtime';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

startMetrics('lode-storage-metrics-test');

describe('storage series on /metrics', () => {
  let stack: TestStack;
  let ops: Awaited<ReturnType<typeof startOpsServer>>;
  let metricsUrl: string;

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
    ops = await startOpsServer({ port: 0, host: '127.0.0.1', logger: createLogger('ops-test', 'silent'), ready: async () => undefined });
    metricsUrl = `http://127.0.0.1:${(ops.server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    await ops?.close();
    await stack?.stop();
  });

  /** The value of the one sample of `name` whose labels include these. */
  const sample = (text: string, name: string, labels: Record<string, string> = {}) => {
    const line = text
      .split('\n')
      .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };

  it("gauges each project's folded usage, and counts what the collector freed", async () => {
    const client = new StorageClient(stack, await stack.seed.project());
    await client.push('a.bin', randomBytes(1000));
    await client.push('b.bin', randomBytes(500));
    await stack.upload.usage.fold();
    let text = await (await fetch(metricsUrl)).text();
    const project = { lode_project_id: client.project.projectId };
    expect(sample(text, 'lode_usage_logical_bytes', project)).toBe(1500);
    expect(sample(text, 'lode_usage_stored_bytes', project)).toBe(1500);

    const dry = await client.api.post(client.url('/obliterate'), { path: 'b.bin', dryRun: true });
    await client.api.post(client.url('/obliterate'), { path: 'b.bin', confirmToken: dry.body.confirmToken });
    text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'lode_gc_marked_objects')).toBe(1);
    expect(sample(text, 'lode_gc_marked_bytes')).toBe(500);

    await stack.upload.objects.runOnce(Date.now() + 3_600_000);
    await stack.upload.usage.fold();
    text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'lode_gc_objects_total', { outcome: 'deleted' })).toBe(1);
    expect(sample(text, 'lode_gc_freed_bytes_total')).toBe(500);
    expect(sample(text, 'lode_gc_marked_objects')).toBe(0);
    expect(sample(text, 'lode_usage_logical_bytes', project)).toBe(1000);
    expect(sample(text, 'lode_usage_stored_bytes', project)).toBe(1000);
  });
});
