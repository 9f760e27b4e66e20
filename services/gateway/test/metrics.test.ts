import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetrics } from '@lode/telemetry/metrics-sdk';
import { createLogger } from '@lode/telemetry';
import { startOpsServer } from '@lode/runtime';
import { pushFile } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

// Started after every module is loaded, as in a test process: instruments must bind to it anyway.
startMetrics('lode-metrics-test');

describe('/metrics on the ops port', () => {
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

  const scrape = async () => (await fetch(metricsUrl)).text();
  /** Lines of one series whose labels include every given label. */
  const series = (text: string, name: string, labels: Record<string, string> = {}) =>
    text.split('\n').filter((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)));

  it('serves the listed series after a push, a commit, a history read and a rate-limited write', async () => {
    const p = await stack.seed.project();
    const pushed = await pushFile(p.api, p.projectId, 'levels/one.umap', randomBytes(2048));
    const committed = await p.api.post(`/api/v1/projects/${p.projectId}/commits`, {
      message: 'm',
      fileVersions: [{ fileId: pushed.fileId, version: pushed.version, action: 'add' }],
    });
    expect(committed.status).toBe(201);
    expect((await p.api.get(`/api/v1/projects/${p.projectId}/files/${pushed.fileId}/versions`)).status).toBe(200);

    const limited = await stack.seed.project({ writeRateLimit: { perSecond: 0.001, burst: 1 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited.api.post(`/api/v1/projects/${limited.projectId}/locks`, { fileIds: [pushed.fileId] })).status);
    expect(statuses).toContain(429);

    // The sync and lock consumers take commit.created after the reply; their lag is recorded once they have.
    let text = '';
    await expect
      .poll(
        async () => {
          text = await scrape();
          return series(text, 'lode_events_consumer_pending').length;
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);

    const project = '/api/v1/projects/:projectId';
    expect(
      series(text, 'http_server_request_duration_count', { http_route: `${project}/commits`, http_request_method: 'POST', http_response_status_code: '201' }),
    ).toHaveLength(1);
    expect(series(text, 'http_server_request_duration_bucket', { http_route: `${project}/commits` }).length).toBeGreaterThan(5);
    expect(
      series(text, 'http_server_request_duration_count', { http_route: `${project}/files/:fileId/versions`, http_response_status_code: '200' }),
    ).toHaveLength(1);
    expect(series(text, 'http_server_request_duration_count', { http_route: '/storage/v1/objects/', http_request_method: 'PUT' })).toHaveLength(1);
    expect(series(text, 'lode_ratelimit_rejections_total', { http_route: `${project}/locks` })).toHaveLength(1);
    expect(series(text, 'lode_bus_call_duration_count', { outcome: 'ok' }).some((l) => l.includes('messaging_destination_name="lode.commit.v1.'))).toBe(true);
    expect(series(text, 'lode_bus_handler_duration_count').length).toBeGreaterThan(0);
    expect(series(text, 'lode_storage_presigned_urls_total', { lode_storage_operation: 'put' })).toHaveLength(1);
    expect(series(text, 'lode_storage_presigned_urls_total', { lode_storage_operation: 'get' })).toHaveLength(1);
    expect(series(text, 'lode_outbox_backlog').length).toBeGreaterThan(0);
    expect(series(text, 'lode_outbox_oldest_age').length).toBeGreaterThan(0);
    expect(series(text, 'db_client_connection_count', { db_client_connection_state: 'idle', db_client_connection_pool_name: 'commits' })).toHaveLength(1);
    expect(series(text, 'db_client_connection_pending_requests').length).toBeGreaterThan(0);
    expect(series(text, 'lode_events_consumer_delay_count').length).toBeGreaterThan(0);
    // Label values are templates and names, never ids: a project or file id would explode the series count.
    expect(text).not.toContain(p.projectId);
    expect(text).not.toContain(pushed.fileId);
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
    // An org with a quota has its own: its projects' stored bytes together, and the quota.
    const org = { lode_org_id: client.project.orgId };
    expect(sample(text, 'lode_org_usage_stored_bytes', org)).toBeUndefined();
    await stack.seed.admin.request('PUT', `/admin/v1/orgs/${client.project.orgId}/quota`, { bytes: 10_000 });
    text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'lode_org_usage_stored_bytes', org)).toBe(1500);
    expect(sample(text, 'lode_org_quota_bytes', org)).toBe(10_000);

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

  it('answers /healthz and /readyz, and /readyz fails once stopping', async () => {
    const base = metricsUrl.replace('/metrics', '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    ops.markStopping();
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
