import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats, JetStreamEvents, LocalBus, LocalEvents, NatsBus, type Bus, type EventStream } from '@lode/bus';
import { Database, migrate } from '@lode/db';
import { createLocalObjectHandler, instrumentStorage, LocalBlobStorage, S3BlobStorage, type BlobStorage } from '@lode/storage';
import { createLogger } from '@lode/telemetry';
import { closeServer, listen } from '@lode/runtime';
import {
  createGatewayApp,
  gatewayMigrations,
  IDENTITY_SCHEMA,
  MemoryWriteLimiter,
  PROJECT_SERVICES,
  RedisWriteLimiter,
  type Gateway,
} from '@lode/gateway';
import { startUploadService, UPLOAD_SCHEMA } from '@lode/upload';
import { COMMIT_SCHEMA, startCommitService, type RunningCommitService } from '@lode/commit';
import { LOCK_SCHEMA, startLockService } from '@lode/lock';
import { startSyncService, SYNC_SCHEMA } from '@lode/sync';
import { RESTORE_SCHEMA, startRestoreService } from '@lode/restore';
import { createTestDatabase, TEST_NATS_URL, TEST_REDIS_URL, uniqueName } from './database.ts';
import { testS3Options } from './s3.ts';
import { Seeder } from './seed.ts';

export interface StackOptions {
  /** `local`: the embedded in-process bus. `nats`: gateway and services on separate NATS connections. */
  bus: 'local' | 'nats';
  limiter?: 'memory' | 'redis';
  /** `local`: blobs on disk behind the gateway. `s3`: a fresh bucket on the machine's Swift s3api. */
  storage?: 'local' | 's3';
  defaultWriteLimit?: { perSecond: number; burst: number };
  authCacheMs?: number;
  /** The commit service's lock fence lifetime. */
  fenceTtlMs?: number;
  /** How long a sync waits for its read model to catch up with the latest commit. */
  syncCatchUpMs?: number;
}

export interface TestStack {
  baseUrl: string;
  adminToken: string;
  seed: Seeder;
  gateway: Gateway;
  storage: BlobStorage;
  /** Where the commit service's outbox publishes: JetStream (namespaced) on NATS, in-process otherwise. */
  events: EventStream;
  commit: RunningCommitService;
  /** The upload service's reservation collector, to run on demand. */
  collectReservations(now?: number): Promise<number>;
  databaseUrl: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe: Server = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * The whole system in this process against the machine's real Postgres (a fresh database), and
 * real NATS and Redis when asked, isolated by subject namespace and key prefix.
 */
export async function startTestStack(options: StackOptions): Promise<TestStack> {
  const logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const database = await createTestDatabase();
  const identityDb = new Database({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 5 });
  const filesDb = new Database({ connectionString: database.url, schema: UPLOAD_SCHEMA, max: 5 });
  const commitsDb = new Database({ connectionString: database.url, schema: COMMIT_SCHEMA, max: 5 });
  const locksDb = new Database({ connectionString: database.url, schema: LOCK_SCHEMA, max: 5 });
  const syncDb = new Database({ connectionString: database.url, schema: SYNC_SCHEMA, max: 5 });
  const restoreDb = new Database({ connectionString: database.url, schema: RESTORE_SCHEMA, max: 5 });
  const databases = [identityDb, filesDb, commitsDb, locksDb, syncDb, restoreDb];
  await migrate(identityDb, gatewayMigrations);

  const connections: NatsConnection[] = [];
  let gatewayBus: Bus;
  let serviceBus: Bus;
  let events: EventStream;
  let jetstream: JetStreamEvents | undefined;
  if (options.bus === 'nats') {
    const namespace = uniqueName('t');
    connections.push(await connectNats(TEST_NATS_URL, 'test-gateway'), await connectNats(TEST_NATS_URL, 'test-services'));
    gatewayBus = new NatsBus(connections[0], logger, { namespace });
    serviceBus = new NatsBus(connections[1], logger, { namespace });
    events = jetstream = await JetStreamEvents.connect(connections[1], logger, { namespace });
  } else {
    gatewayBus = serviceBus = new LocalBus(logger);
    events = new LocalEvents(logger);
  }

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-test-'));
  const local =
    options.storage === 's3' ? undefined : new LocalBlobStorage({ dir: dataDir, secret: uniqueName('secret').padEnd(40, 'x'), publicUrl: baseUrl });
  // The raw driver for tests' bulk helpers; the services get it instrumented, as in production.
  const storage: BlobStorage = local ?? new S3BlobStorage(testS3Options());
  const instrumented = instrumentStorage(storage);
  const upload = await startUploadService({ db: filesDb, bus: serviceBus, storage: instrumented, logger });
  const cursorSecret = uniqueName('cursor-secret').padEnd(40, 'x');
  const commit = await startCommitService({
    db: commitsDb,
    bus: serviceBus,
    events,
    storage: instrumented,
    logger,
    cursorSecret,
    outbox: { relay: true, pollMs: 200, retentionMs: 60_000 },
    idempotencyTtlMs: 86_400_000,
    fenceTtlMs: options.fenceTtlMs ?? 60_000,
  });
  const lock = await startLockService({ db: locksDb, bus: serviceBus, events, logger, cursorSecret });
  const restore = await startRestoreService({ db: restoreDb, bus: serviceBus, logger });
  const sync = await startSyncService({ db: syncDb, bus: serviceBus, events, logger, catchUpMs: options.syncCatchUpMs ?? 5000 });

  const limiter = options.limiter === 'redis' ? new RedisWriteLimiter(TEST_REDIS_URL, `${uniqueName('lode-test')}:`) : new MemoryWriteLimiter();
  const adminToken = uniqueName('admin-token');
  const gateway = createGatewayApp({
    db: identityDb,
    bus: gatewayBus,
    limiter,
    logger,
    adminToken,
    defaultWriteLimit: options.defaultWriteLimit ?? { perSecond: 10_000, burst: 10_000 },
    authCacheMs: options.authCacheMs ?? 5000,
    bodyLimit: '16mb',
    services: PROJECT_SERVICES,
    localObjects: local && createLocalObjectHandler(local),
  });
  const server = await listen(gateway.app, port, '127.0.0.1');

  return {
    baseUrl,
    adminToken,
    seed: new Seeder(baseUrl, adminToken),
    gateway,
    storage,
    events,
    commit,
    collectReservations: (now) => upload.collector.runOnce(now),
    databaseUrl: database.url,
    async stop() {
      await closeServer(server);
      await upload.stop();
      await commit.stop();
      await Promise.all([lock.stop(), sync.stop(), restore.stop()]);
      await gatewayBus.close();
      if (serviceBus !== gatewayBus) await serviceBus.close();
      await events.close();
      await jetstream?.deleteStream();
      await Promise.all(connections.map((c) => c.close()));
      await limiter.close();
      await Promise.all(databases.map((db) => db.close()));
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
