import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoUnhandledRejections,
  createTestDatabase,
  freePorts,
  spawnService,
  TEST_REDIS_URL,
  uniqueName,
  untilAllReady,
  type ServiceProcess,
  type TestDatabase,
} from '@lode/testkit';
import { startPrivateNats, type PrivateNats } from '@lode/testkit/private-nats';
import { spawnServiceProcess } from '@lode/system/testing';

/** Hang guard for what the processes should reach by themselves (a cold start on this loaded machine included), not a latency bound. */
const DEADLINE_MS = 150_000;
const TEST_TIMEOUT_MS = 3 * DEADLINE_MS;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { code?: string };
}

/** Probes until `done`; past the deadline, fails with the last value and what the processes printed. */
async function poll<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, processes: ServiceProcess[]): Promise<T[]> {
  const deadline = Date.now() + DEADLINE_MS;
  const seen: T[] = [];
  for (;;) {
    const value = await probe();
    seen.push(value);
    if (done(value)) return seen;
    if (Date.now() > deadline) {
      const printed = processes.map((p) => `[${p.name}${p.running() ? '' : ', exited'}] ${p.output().slice(-3000)}`).join('\n');
      throw new Error(`${what} never came; last: ${JSON.stringify(value)}\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function statusOf(url: string): Promise<number> {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0; // not listening (yet)
  }
}

/** A gateway and the identity service as deployed, on a NATS server of this test's own that it kills and restarts. */
describe('processes through a NATS outage', () => {
  let nats: PrivateNats;
  let database: TestDatabase;
  let dataDir: string;
  let gateway: ServiceProcess;
  let identity: ServiceProcess;
  let baseUrl: string;
  const adminToken = uniqueName('admin-token');

  const listOrgs = async (): Promise<Answer> => {
    const res = await fetch(`${baseUrl}/admin/v1/orgs`, { headers: { authorization: `Bearer ${adminToken}` } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Answer['body'] };
  };

  beforeAll(async () => {
    nats = await startPrivateNats();
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-nats-outage-'));
    const [port, gatewayOps, identityOps] = await freePorts(3);
    baseUrl = `http://127.0.0.1:${port}`;
    const env = { NATS_URL: nats.url, LODE_BUS_NAMESPACE: uniqueName('outage'), LOG_LEVEL: 'warn' };
    // Both start while NATS is down.
    await nats.kill();
    gateway = spawnService('gateway', {
      ...env,
      PORT: String(port),
      LODE_OPS_PORT: String(gatewayOps),
      REDIS_URL: TEST_REDIS_URL,
      LODE_ADMIN_TOKEN: adminToken,
      LODE_DATA_DIR: dataDir,
      LODE_STORAGE_SECRET: randomBytes(32).toString('hex'),
    });
    identity = spawnServiceProcess('identity', {
      ...env,
      LODE_OPS_PORT: String(identityOps),
      DATABASE_URL: database.url,
      LODE_CURSOR_SECRET: randomBytes(32).toString('hex'),
    });
  });

  afterAll(async () => {
    await Promise.all([gateway, identity].map((p) => p?.stop()));
    await nats?.stop();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    assertNoUnhandledRejections([gateway, identity].filter(Boolean));
  });

  it(
    'a process started while NATS is down stays alive and not ready, and becomes ready once NATS is up',
    async () => {
      for (const p of [gateway, identity]) {
        await poll(
          `${p.name}'s /healthz`,
          () => statusOf(`${p.opsUrl}/healthz`),
          (status) => status === 200,
          [p],
        );
        expect(await statusOf(`${p.opsUrl}/readyz`)).toBe(503);
      }
      await nats.restart();
      await untilAllReady([gateway, identity], { restarts: 0, timeoutMs: DEADLINE_MS });
      expect((await listOrgs()).status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers 503 service_unavailable with Retry-After during the outage, is not ready, and serves again after NATS restarts',
    async () => {
      await nats.kill();
      await poll(
        "the gateway's /readyz failing",
        () => statusOf(`${gateway.opsUrl}/readyz`),
        (status) => status === 503,
        [gateway],
      );
      await poll(
        "identity's /readyz failing",
        () => statusOf(`${identity.opsUrl}/readyz`),
        (status) => status === 503,
        [identity],
      );
      expect(await listOrgs()).toEqual({ status: 503, retryAfter: '1', body: expect.objectContaining({ code: 'service_unavailable' }) });

      await nats.restart();
      const answers = await poll('an answer after the restart', listOrgs, (answer) => answer.status === 200, [gateway, identity]);
      // On the way back nothing waits for a timeout (504): each failure is the fast 503.
      expect(answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.body.code === 'service_unavailable'))).toEqual([]);
      await untilAllReady([gateway, identity], { restarts: 0, timeoutMs: DEADLINE_MS });
      // Neither process was restarted: each recovered on its own connection.
      expect([gateway.running(), identity.running()]).toEqual([true, true]);
    },
    TEST_TIMEOUT_MS,
  );
});
