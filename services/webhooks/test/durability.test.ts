import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pushFile, Seeder, spawnService, untilReady, waitForReady, type SeededProject, type ServiceProcess } from '@lode/testkit';
import { startProcessStack } from '@lode/system/testing';
import { eventually, Receiver, withReceiver } from './receiver.ts';
import { FeedClient } from './sse.ts';

/** Fast retries, and a short attempt timeout so a delivery cut by a kill comes due again within seconds. */
const WEBHOOK_SETTINGS = { LODE_WEBHOOK_ALLOW_PRIVATE: 'true', LODE_WEBHOOK_RETRY_BASE_MS: '20', LODE_WEBHOOK_TIMEOUT_MS: '2000' };

/** The process that delivers: killed while the receiver holds its request open, then started again. */
interface Deployment {
  seed: Seeder;
  baseUrl: string;
  deliverer: ServiceProcess;
}

/**
 * The receiver holds the first request of each event open and never answers it; the delivering
 * process is SIGKILLed while it waits. After its restart the delivery must come again and succeed:
 * accepted exactly once, logged as delivered on the second attempt.
 */
async function killedMidDelivery(deployment: Deployment, receiver: Receiver): Promise<void> {
  const owner = await deployment.seed.project();
  const created = await owner.api.post(`/api/v1/projects/${owner.projectId}/webhooks`, { url: receiver.url, events: ['lock.acquired'] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  receiver.secret = created.body.secret;
  const held: string[] = [];
  receiver.answer = ({ id, attempt }) => {
    if (attempt > 1) return { status: 204 };
    held.push(id);
    return 'hang';
  };
  const file = await lockFile(owner);
  await eventually('the first attempt held open', () => held.length === 1);
  await deployment.deliverer.kill();
  deployment.deliverer.restart();
  await untilReady(deployment.deliverer, { restarts: 0 });

  const accepted = await eventually(
    'the delivery after the restart',
    () => receiver.delivered('lock.acquired').filter((r) => JSON.parse(r.body).projectId === owner.projectId).length > 0 && receiver.delivered('lock.acquired'),
  );
  expect(accepted.map((r) => r.id)).toEqual(held);
  expect(JSON.parse(accepted[0].body).data.locks[0].fileId).toBe(file.fileId);
  const log = await eventually('the delivery logged', async () => {
    const res = await owner.api.get(`/api/v1/projects/${owner.projectId}/webhooks/${created.body.id}/deliveries`);
    return res.body.data[0]?.status === 'delivered' && res.body.data;
  });
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ attempts: 2, lastStatus: 204 });
}

async function lockFile(p: SeededProject) {
  const file = await pushFile(p.api, p.projectId, `a-${randomBytes(3).toString('hex')}.bin`, randomBytes(32));
  expect((await p.api.post(`/api/v1/projects/${p.projectId}/locks`, { fileIds: [file.fileId] })).body.acquired).toHaveLength(1);
  return file;
}

describe('webhook deliveries survive a process killed mid-delivery (embedded: npm start as one process)', () => {
  let embedded: ServiceProcess;
  let dataDir: string;
  let deployment: Deployment;
  let receiver: Receiver;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-webhooks-'));
    // As root, embedded Postgres runs initdb as its own OS user, which must reach the data directory.
    await chmod(dataDir, 0o755);
    const [apiPort, opsPort] = [await freePort(), await freePort()];
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const adminToken = randomBytes(24).toString('hex');
    embedded = spawnService('embedded', {
      PORT: String(apiPort),
      LODE_OPS_PORT: String(opsPort),
      LODE_DATA_DIR: dataDir,
      LODE_ADMIN_TOKEN: adminToken,
      LODE_PUBLIC_URL: baseUrl,
      ...WEBHOOK_SETTINGS,
    });
    await untilReady(embedded, { restarts: 0 });
    await waitForReady(baseUrl, 90_000);
    deployment = { seed: new Seeder(baseUrl, adminToken), baseUrl, deliverer: embedded };
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers the event once the process is back, accepted exactly once', async () => {
    await killedMidDelivery(deployment, receiver);
  });
});

describe('webhook deliveries and the live feed with every service its own process on NATS', () => {
  const harness = withReceiver(() => startProcessStack({ storage: 'local', gateways: 2, env: WEBHOOK_SETTINGS }));

  it('delivers the event once the webhooks process is back, accepted exactly once, and counts it in the metrics', async () => {
    const deliverer = harness.stack.replicas.webhooks[0];
    await killedMidDelivery({ seed: harness.stack.seed, baseUrl: harness.stack.baseUrl, deliverer }, harness.receiver);
    const metrics = await (await fetch(`${deliverer.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^lode_webhooks_deliveries(_total)?\{[^}]*outcome="delivered"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^lode_webhooks_delivery_lag_count\b.* 1$/m);
  });

  it('serves the feed from any gateway: a lock made through one shows on a feed of the other, and a resume works on either', async () => {
    const owner = await harness.stack.seed.project();
    const [first, second] = harness.stack.gatewayUrls;
    const feed = await FeedClient.open(`${second}/api/v1/projects/${owner.projectId}/events`, owner.api.headers);
    try {
      const file = await lockFile(owner);
      const acquired = await feed.next('lock.acquired');
      expect(acquired.data).toMatchObject({ locks: [{ fileId: file.fileId }] });
      expect(await (await fetch(`${harness.stack.gateways[1].opsUrl}/metrics`)).text()).toMatch(/^lode_events_feeds_open\b.* 1$/m);
      await feed.close();
      await owner.api.delete(`/api/v1/projects/${owner.projectId}/locks`, { fileIds: [file.fileId] });
      const resumed = await FeedClient.open(`${first}/api/v1/projects/${owner.projectId}/events`, {
        ...owner.api.headers,
        'last-event-id': String(acquired.feedId),
      });
      try {
        await resumed.next('lock.released');
        expect(resumed.events.map((e) => e.event)).toEqual(['lock.released']);
      } finally {
        await resumed.close();
      }
    } finally {
      await feed.close();
    }
  });
});
