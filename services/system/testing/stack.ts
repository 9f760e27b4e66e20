import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectNats, JetStreamEvents, LocalBus, LocalEvents, NatsBus, type Bus, type EventStream } from '@lode/bus';
import { createLocalObjectHandler, instrumentStorage, LocalBlobStorage, S3BlobStorage, type BlobStorage } from '@lode/storage';
import { closeServer, listen } from '@lode/runtime';
import { createGatewayApp, MemoryWriteLimiter, PROJECT_SERVICES, RedisWriteLimiter, type AuthFailureLimits, type Gateway } from '@lode/gateway';
import {
  createTestDatabase,
  freePort,
  recordSecret,
  recordSecretSettings,
  Seeder,
  TEST_NATS_URL,
  TEST_REDIS_URL,
  testLogger,
  testS3Options,
  uniqueName,
} from '@lode/testkit';
import { startInProcess, type InProcessServices } from '../src/in-process.ts';
import type { RunningOf } from '../src/registry.ts';

export interface StackOptions {
  /** `local`: the embedded in-process bus. `nats`: gateway and services on separate NATS connections. */
  bus: 'local' | 'nats';
  limiter?: 'memory' | 'redis';
  /** `local`: blobs on disk behind the gateway. `s3`: a fresh bucket on the machine's Swift s3api. */
  storage?: 'local' | 's3';
  defaultWriteLimit?: { perSecond: number; burst: number };
  authCacheMs?: number;
  /** Budgets of failed authentications; out of the way unless given, as the write limit is. */
  authFailureLimits?: AuthFailureLimits;
  /** The commit service's lock fence lifetime. */
  fenceTtlMs?: number;
  /** How long a sync waits for its read model to catch up with the latest commit. */
  syncCatchUpMs?: number;
  /** How long a draft commit lives. */
  draftTtlMs?: number;
  /** Longest silence on a live event feed before its keep-alive comment. */
  feedHeartbeatMs?: number;
  /** How often an open feed authenticates its caller again (5 s as deployed). */
  feedRecheckMs?: number;
  /** Settings the services read, over the test defaults (LODE_WEBHOOK_ALLOW_PRIVATE: 'false', say). */
  environment?: Record<string, string>;
}

export interface TestStack {
  baseUrl: string;
  adminToken: string;
  seed: Seeder;
  gateway: Gateway;
  /** The gateway's bus: a test's own node calls the stack's services through it. */
  bus: Bus;
  storage: BlobStorage;
  /** Where the services' outboxes publish: JetStream (namespaced) on NATS, in-process otherwise. */
  events: EventStream;
  commit: RunningOf<'commit'>;
  /** The upload service: its collectors and usage fold, to run on demand. */
  upload: RunningOf<'upload'>;
  /** The upload service's reservation collector, to run on demand. */
  collectReservations(now?: number): Promise<number>;
  /** The settings every service of the stack was started with, for a test that starts another one beside them. */
  environment: Record<string, string>;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** What the services read in a test stack: fast relays and shared secrets, the rest as deployed. */
function testEnvironment(options: StackOptions): Record<string, string> {
  return {
    LODE_CURSOR_SECRET: uniqueName('cursor-secret').padEnd(40, 'x'),
    LODE_SECRETS_KEY: randomBytes(32).toString('base64'),
    LODE_OUTBOX_POLL_MS: '200',
    LODE_OUTBOX_RETENTION_MS: '60000',
    LODE_LOCK_FENCE_TTL_MS: String(options.fenceTtlMs ?? 60_000),
    LODE_SYNC_CATCH_UP_MS: String(options.syncCatchUpMs ?? 5000),
    LODE_DRAFT_TTL_MS: String(options.draftTtlMs ?? 86_400_000),
    // Reservations are collected when a test asks (collectReservations), never behind its back.
    LODE_GC_INTERVAL_MS: String(24 * 3_600_000),
    LODE_GC_GRACE_MS: '0',
    // Webhook receivers in tests listen on loopback; retries come within milliseconds, not seconds.
    LODE_WEBHOOK_ALLOW_PRIVATE: 'true',
    LODE_WEBHOOK_RETRY_BASE_MS: '20',
    ...options.environment,
  };
}

/**
 * The whole system in this process against the machine's real Postgres (a fresh database), and
 * real NATS and Redis when asked, isolated by subject namespace and key prefix.
 */
export async function startTestStack(options: StackOptions): Promise<TestStack> {
  // In a test run, to the test file's log at `info` (libs/testkit/src/test-logs.ts).
  const logger = testLogger('test');
  const database = await createTestDatabase();

  const connections: Awaited<ReturnType<typeof connectNats>>[] = [];
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
  const storageSecret = uniqueName('secret').padEnd(40, 'x');
  const local = options.storage === 's3' ? undefined : new LocalBlobStorage({ dir: dataDir, secret: storageSecret, publicUrl: baseUrl });
  // The raw driver for tests' bulk helpers; the services get it instrumented, as in production.
  const storage: BlobStorage = local ?? new S3BlobStorage(testS3Options());
  const environment = testEnvironment(options);
  recordSecretSettings(environment);
  const services: InProcessServices = await startInProcess({
    connectionString: database.url,
    bus: serviceBus,
    events,
    storage: instrumentStorage(storage),
    logger,
    environment,
  });

  const redisLimiter = options.limiter === 'redis' ? new RedisWriteLimiter(TEST_REDIS_URL, { prefix: `${uniqueName('lode-test')}:` }) : undefined;
  // Counted in Redis from the first request, not in the gateway's fallback while it connects.
  await redisLimiter?.connected();
  const limiter = redisLimiter ?? new MemoryWriteLimiter();
  const adminToken = uniqueName('admin-token');
  recordSecret('admin token', adminToken);
  recordSecret('storage secret', storageSecret);
  const gateway = createGatewayApp({
    bus: gatewayBus,
    limiter,
    logger,
    adminToken,
    defaultWriteLimit: options.defaultWriteLimit ?? { perSecond: 10_000, burst: 10_000 },
    authCacheMs: options.authCacheMs ?? 5000,
    authFailureLimits: options.authFailureLimits ?? { perAddress: 1_000_000, perKey: 1_000_000, windowMs: 60_000 },
    bodyLimit: '16mb',
    services: PROJECT_SERVICES,
    localObjects: local && createLocalObjectHandler(local),
    feedHeartbeatMs: options.feedHeartbeatMs,
    feedRecheckMs: options.feedRecheckMs,
  });
  const server = await listen(gateway.app, port, '127.0.0.1');

  return {
    baseUrl,
    adminToken,
    seed: new Seeder(baseUrl, adminToken),
    gateway,
    bus: gatewayBus,
    storage,
    events,
    commit: services.get('commit'),
    upload: services.get('upload'),
    collectReservations: (now) => services.get('upload').collector.runOnce(now),
    environment,
    databaseUrl: database.url,
    async stop() {
      await closeServer(server);
      await services.stop();
      await gatewayBus.close();
      if (serviceBus !== gatewayBus) await serviceBus.close();
      await events.close();
      await jetstream?.deleteStream();
      await Promise.all(connections.map((c) => c.close()));
      await limiter.close();
      await services.closeDatabases();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
