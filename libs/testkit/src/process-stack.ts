import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, TEST_NATS_URL, TEST_REDIS_URL, uniqueName } from './database.ts';
import { spawnService, waitForReady, type ServiceProcess } from './processes.ts';
import { testS3Options } from './s3.ts';
import { Seeder } from './seed.ts';
import { connectNats, JetStreamEvents } from '@lode/bus';
import { createLogger } from '@lode/telemetry';
import { freePort } from './stack.ts';

export interface ProcessStack {
  baseUrl: string;
  seed: Seeder;
  processes: Record<'gateway' | 'upload' | 'lock' | 'sync' | 'restore', ServiceProcess>;
  /** Commit service replicas, all serving the same queue group. */
  commitReplicas: ServiceProcess[];
  databaseUrl: string;
  /** Environment every process got: a test can start more replicas with it. */
  env: Record<string, string>;
  /** SIGTERM to every process; resolves with their exit codes. */
  stopProcesses(): Promise<(number | null)[]>;
  stop(): Promise<void>;
}

/** The gateway, the upload service and commit replicas as separate OS processes on NATS, as deployed. */
export async function startProcessStack(options: { storage: 'local' | 's3'; commitReplicas?: number }): Promise<ProcessStack> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-procs-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = uniqueName('admin-token');
  const s3 = testS3Options();
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: TEST_NATS_URL,
    REDIS_URL: TEST_REDIS_URL,
    LODE_BUS_NAMESPACE: uniqueName('procs'),
    LODE_DATA_DIR: dataDir,
    LODE_STORAGE_SECRET: randomBytes(32).toString('hex'),
    LODE_PUBLIC_URL: baseUrl,
    LODE_ADMIN_TOKEN: adminToken,
    LODE_CURSOR_SECRET: randomBytes(32).toString('hex'),
    PORT: String(port),
    ...(options.storage === 's3'
      ? {
          S3_BUCKET: s3.bucket,
          S3_ENDPOINT: s3.endpoint!,
          S3_REGION: s3.region,
          S3_ACCESS_KEY_ID: s3.accessKeyId,
          S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
          S3_FORCE_PATH_STYLE: 'true',
          S3_CREATE_BUCKET: 'true',
        }
      : {}),
  };
  const processes = { upload: spawnService('upload', env), gateway: spawnService('gateway', env), lock: spawnService('lock', env), sync: spawnService('sync', env), restore: spawnService('restore', env) };
  const commitReplicas = Array.from({ length: options.commitReplicas ?? 1 }, () => spawnService('commit', env));
  const all = [...Object.values(processes), ...commitReplicas];
  await waitForReady(baseUrl).catch((error: Error) => {
    throw new Error(`${error.message}\n${all.map((p) => `[${p.name}] ${p.output()}`).join('\n')}`);
  });
  const stopProcesses = () => Promise.all(all.map((p) => p.stop()));
  return {
    baseUrl,
    seed: new Seeder(baseUrl, adminToken),
    processes,
    commitReplicas,
    databaseUrl: database.url,
    env,
    stopProcesses,
    async stop() {
      await stopProcesses();
      await deleteEventStream(env.LODE_BUS_NAMESPACE);
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The namespaced JetStream stream the commit replicas created, so runs leave nothing on the server. */
async function deleteEventStream(namespace: string): Promise<void> {
  const nc = await connectNats(TEST_NATS_URL, 'test-cleanup');
  try {
    const events = await JetStreamEvents.connect(nc, createLogger('test', 'silent'), { namespace });
    await events.deleteStream();
  } finally {
    await nc.close();
  }
}
