import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  pushFile,
  Seeder,
  spawnService,
  TEST_NATS_URL,
  TEST_REDIS_URL,
  uniqueName,
  waitForReady,
  type ServiceProcess,
  type TestDatabase,
} from '@lode/testkit';

describe('gateway and upload service as separate OS processes on NATS', () => {
  let database: TestDatabase;
  let dataDir: string;
  let baseUrl: string;
  let seed: Seeder;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-e2e-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const adminToken = uniqueName('admin-token');
    const env = {
      DATABASE_URL: database.url,
      NATS_URL: TEST_NATS_URL,
      REDIS_URL: TEST_REDIS_URL,
      LODE_BUS_NAMESPACE: uniqueName('e2e'),
      LODE_DATA_DIR: dataDir,
      LODE_STORAGE_SECRET: randomBytes(32).toString('hex'),
      LODE_PUBLIC_URL: baseUrl,
      LODE_ADMIN_TOKEN: adminToken,
      PORT: String(port),
    };
    processes.push(spawnService('upload', env), spawnService('gateway', env));
    await waitForReady(baseUrl).catch((error: Error) => {
      throw new Error(`${error.message}\n${processes.map((p) => `[${p.name}] ${p.output()}`).join('\n')}`);
    });
    seed = new Seeder(baseUrl, adminToken);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('pushes files over HTTP end to end, with dedup and a version conflict', async () => {
    const p = await seed.project();
    expect((await p.api.post('/api/v1/auth/validate-key')).body).toMatchObject({ valid: true, projectId: p.projectId });
    const bytes = randomBytes(256 * 1024);
    const first = await pushFile(p.api, p.projectId, 'Maps/level01.umap', bytes);
    expect(first).toMatchObject({ version: 1, dedup: false });
    const copy = await pushFile(p.api, p.projectId, 'Maps/level01-backup.umap', bytes);
    expect(copy).toMatchObject({ version: 1, dedup: true });
    const second = await pushFile(p.api, p.projectId, 'Maps/level01.umap', randomBytes(100));
    expect(second.version).toBe(2);
  });

  it('shuts both processes down cleanly on SIGTERM', async () => {
    const codes = await Promise.all(processes.map((p) => p.stop()));
    expect(codes).toEqual([0, 0]);
  });
});
