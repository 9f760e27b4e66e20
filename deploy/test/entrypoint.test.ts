import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, JetStreamEvents, NatsBus } from '@lode/bus';
import { commit, identity, lock, pathKey, restore, sync, upload, webhooks, type Actor } from '@lode/contracts';
import { Database } from '@lode/db';
import { SERVICES } from '@lode/system';
import { createLogger } from '@lode/telemetry';
import {
  createTestDatabase,
  describeContent,
  freePort,
  pushFile,
  Seeder,
  TEST_NATS_URL,
  TEST_REDIS_URL,
  uniqueName,
  waitForReady,
  type PushedFile,
  type SeededProject,
  type TestDatabase,
} from '@lode/testkit';
import { IMAGE_SERVICES } from '../services.ts';
import { refusesConnections, startEntrypoint, type EntrypointProcess } from './entrypoint-process.ts';
import { DEPLOYED_SERVICES } from './repo.ts';

const silent = createLogger('entrypoint-test', 'silent');

describe('the image entry point', () => {
  it('SERVICE=migrate creates every schema and exits 0, and again on an up-to-date database', async () => {
    const database = await createTestDatabase();
    try {
      for (let run = 0; run < 2; run++) {
        const migrate = startEntrypoint({ SERVICE: 'migrate', DATABASE_URL: database.url });
        expect(await migrate.exited, migrate.output()).toBe(0);
      }
      const db = new Database({ connectionString: database.url, schema: 'public' });
      try {
        for (const { schema } of SERVICES) {
          const { rows } = await db.query<{ applied: number }>(`SELECT count(*)::int AS applied FROM "${schema}".schema_migrations`);
          expect(rows[0].applied, schema).toBeGreaterThan(0);
        }
      } finally {
        await db.close();
      }
    } finally {
      await database.drop();
    }
  });

  it.each([['nope'], [undefined]])('SERVICE=%s exits 1 and names the services it accepts', async (service) => {
    const started = startEntrypoint({ SERVICE: service });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain(`SERVICE must be one of ${IMAGE_SERVICES.join(', ')}`);
  });
});

/**
 * Every long-running service started by the entry point on one database and one NATS subject
 * namespace, as the image would run them. Each is then stopped with SIGTERM while a request is in
 * flight; the order lets every service still reach the ones its request calls.
 */
describe('each SERVICE as a plain process on NATS', () => {
  const namespace = uniqueName('deploy');
  const adminToken = uniqueName('admin-token');
  const processes = new Map<string, { process: EntrypointProcess; readyUrl: string }>();
  let database: TestDatabase;
  let dataDir: string;
  let baseUrl: string;
  let project: SeededProject;
  let actor: Actor;
  let level: PushedFile;
  let uncommitted: PushedFile;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-entrypoint-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: database.url,
      NATS_URL: TEST_NATS_URL,
      REDIS_URL: TEST_REDIS_URL,
      LODE_BUS_NAMESPACE: namespace,
      LODE_DATA_DIR: dataDir,
      LODE_STORAGE_SECRET: randomBytes(32).toString('hex'),
      LODE_PUBLIC_URL: baseUrl,
      LODE_ADMIN_TOKEN: adminToken,
      LODE_CURSOR_SECRET: randomBytes(32).toString('hex'),
      LODE_SECRETS_KEY: randomBytes(32).toString('base64'),
      PORT: String(port),
    };
    for (const service of DEPLOYED_SERVICES) {
      const opsPort = await freePort();
      const process = startEntrypoint({ ...env, SERVICE: service, LODE_OPS_PORT: String(opsPort) });
      // The gateway's readiness is its own port's; the services' is their ops port's.
      processes.set(service, { process, readyUrl: service === 'gateway' ? `${baseUrl}/readyz` : `http://127.0.0.1:${opsPort}/readyz` });
    }
    await Promise.all(
      [...processes].map(([service, { process, readyUrl }]) =>
        waitForReady(readyUrl.replace(/\/readyz$/, ''), 90_000).catch((error: Error) => {
          throw new Error(`${service}: ${error.message}\n${process.output()}`);
        }),
      ),
    );

    // A project with a file committed twice (so a restore has a version to go back to) and one
    // confirmed but uncommitted version (for a commit), all through the gateway.
    project = await new Seeder(baseUrl, adminToken).project();
    const identity = await project.api.post('/api/v1/auth/validate-key');
    actor = {
      projectId: project.projectId,
      orgId: project.orgId,
      userId: project.userId,
      userName: identity.body.userName,
      userAvatarUrl: null,
      keyId: project.keyId,
      role: 'owner',
    };
    level = await pushFile(project.api, project.projectId, 'levels/one.bin', Buffer.from('first take'));
    await commitThroughGateway([{ fileId: level.fileId, action: 'add', version: level.version }]);
    const second = await pushFile(project.api, project.projectId, 'levels/one.bin', Buffer.from('second take'));
    await commitThroughGateway([{ fileId: second.fileId, action: 'modify', version: second.version }]);
    uncommitted = await pushFile(project.api, project.projectId, 'levels/two.bin', Buffer.from('not yet committed'));
  }, 120_000);

  afterAll(async () => {
    for (const { process } of processes.values()) if (process.child.exitCode === null) process.child.kill('SIGKILL');
    const nc = await connectNats(TEST_NATS_URL, 'entrypoint-test-cleanup');
    try {
      await (await JetStreamEvents.connect(nc, silent, { namespace })).deleteStream();
    } finally {
      await nc.close();
    }
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function commitThroughGateway(fileVersions: unknown[]): Promise<void> {
    const created = await project.api.post(`/api/v1/projects/${project.projectId}/commits`, { message: 'level', fileVersions });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }

  it('every one answers /readyz with 200', async () => {
    for (const [service, { readyUrl }] of processes) expect((await fetch(readyUrl)).status, service).toBe(200);
  });

  it('the gateway finishes the request in flight at SIGTERM, exits 0 and stops answering', async () => {
    const { process, readyUrl } = processes.get('gateway')!;
    const body = JSON.stringify({ files: [{ path: level.path, sha256: level.sha256 }] });
    // Expect: 100-continue makes the server say when it has the request; half the body is then sent
    // before the signal and the rest after it, so the request is in flight while the gateway drains.
    const request = http.request(`${baseUrl}/api/v1/projects/${project.projectId}/sync`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
        authorization: `Bearer ${project.key}`,
        'x-device-id': project.deviceId,
      },
    });
    const response = once(request, 'response') as Promise<[http.IncomingMessage]>;
    request.flushHeaders();
    await once(request, 'continue');
    request.write(body.slice(0, body.length / 2));

    process.child.kill('SIGTERM');
    // The listener closes first (no new connections): the request above is now in flight in a draining server.
    await expect.poll(() => refusesConnections(readyUrl), { timeout: 10_000 }).toBe(true);
    request.end(body.slice(body.length / 2));

    const [res] = await response;
    let text = '';
    for await (const chunk of res) text += String(chunk);
    expect(res.statusCode, text).toBe(200);
    expect(JSON.parse(text).files).toEqual([expect.objectContaining({ path: level.path, status: expect.any(String) })]);
    expect(await process.exited, process.output()).toBe(0);
  });

  /** Each service's request, and what a successful reply holds. Ordered so callees outlive callers. */
  const inFlightRequests: [string, (bus: NatsBus) => Promise<unknown>][] = [
    ['webhooks', (bus) => bus.call(webhooks.list, { manager: { projectId: actor.projectId, role: 'owner' } }).then((r) => expect(r.data).toEqual([]))],
    [
      'restore',
      (bus) =>
        bus.call(restore.create, { actor, restore: { files: [{ fileId: level.fileId, toVersion: 1 }] } }).then((r) => expect(r.restored).toHaveLength(1)),
    ],
    [
      'sync',
      (bus) =>
        bus
          .call(sync.compare, { actor, files: { keys: [pathKey(level.path)], sha256s: [level.sha256], baseVersions: [null] } })
          .then((r) => expect(r.rows.statuses[0]).toBe('up_to_date')),
    ],
    [
      'commit',
      (bus) =>
        bus
          .call(commit.create, {
            actor,
            commit: commit.toColumns({ message: 'in flight', fileVersions: [{ fileId: uncommitted.fileId, action: 'add', version: uncommitted.version }] }),
          })
          .then((r) => expect(r.fileCount).toBe(1)),
    ],
    ['lock', (bus) => bus.call(lock.acquire, { actor, fileIds: [level.fileId] }).then((r) => expect(r.acquired).toHaveLength(1))],
    [
      'upload',
      (bus) =>
        bus
          .call(upload.initiate, { actor, file: { path: 'levels/three.bin', ...describeContent(Buffer.from('three')) } })
          .then((r) => expect(r).toHaveProperty('uploadUrl')),
    ],
    [
      'identity',
      (bus) => bus.call(identity.resolveKey, { keyHash: identity.apiKeyHash(project.key) }).then((r) => expect(r.identity?.keyId).toBe(project.keyId)),
    ],
  ];

  it('sends a request in flight to every service', () => {
    expect(inFlightRequests.map(([service]) => service).sort()).toEqual(DEPLOYED_SERVICES.filter((s) => s !== 'gateway').sort());
  });

  it.each(inFlightRequests)('%s answers the bus request sent just before SIGTERM, exits 0 and stops answering', async (service, send) => {
    const { process, readyUrl } = processes.get(service)!;
    const nc = await connectNats(TEST_NATS_URL, `entrypoint-test-${service}`);
    const bus = new NatsBus(nc, silent, { namespace });
    try {
      const answered = send(bus);
      // Once the flush returns, NATS has routed the request to the service: it is delivered before
      // the unsubscribe that starts the service's drain, so the drain must answer it.
      await nextTurn();
      await nc.flush();
      process.child.kill('SIGTERM');
      await answered;
      expect(await process.exited, process.output()).toBe(0);
      expect(await refusesConnections(readyUrl)).toBe(true);
    } finally {
      await bus.close();
      await nc.close();
    }
  });
});
