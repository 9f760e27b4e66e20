import pg from 'pg';
import {
  startPrivatePostgres,
  startPrivateRedis,
  startStorageFaultProxy,
  testS3Options,
  uniqueName,
  type PrivatePostgres,
  type PrivateRedis,
  type StorageFaultProxy,
} from '@lode/testkit';
import { startProcessStack, type ProcessStack } from '../testing/process-stack.ts';
import { BUS_TIMEOUT_MS } from './deadlines.ts';
import { startMonitoredNats, type MonitoredNats } from './nats-connections.ts';

/** The settings the suite runs every process with, besides the infrastructure's addresses. */
const FAULT_SUITE_ENV = {
  LODE_BUS_TIMEOUT_MS: String(BUS_TIMEOUT_MS),
  LODE_OUTBOX_POLL_MS: '200',
  // The workload's writes are never limited by their rate: what is measured is the faults.
  LODE_WRITE_RATE_PER_SECOND: '100000',
  LODE_WRITE_RATE_BURST: '1000000',
  LODE_GC_INTERVAL_MS: String(24 * 3_600_000),
};

/**
 * Everything the fault suite runs and breaks: a Postgres cluster, a NATS server, a Redis and a
 * storage proxy of its own (private ports, never the machine's shared servers), and the system as
 * separate processes on them. Two replicas of the lock and commit services, whose single replica's
 * death the issue found harmful, and two gateways, as a load balancer would spread clients.
 */
export interface FaultSystem {
  postgres: PrivatePostgres;
  nats: MonitoredNats;
  redis: PrivateRedis;
  storage: StorageFaultProxy;
  stack: ProcessStack;
  databaseName: string;
  /** A connection to the system's database for the checker's SQL; reconnects after Postgres faults. */
  sql<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

export async function startFaultSystem(): Promise<FaultSystem> {
  const [postgres, nats, redis, storage] = await Promise.all([startPrivatePostgres(), startMonitoredNats(), startPrivateRedis(), startStorageFaultProxy(testS3Options().endpoint!)]);
  const databaseName = uniqueName('lode_faults');
  const databaseUrl = await postgres.createDatabase(databaseName);
  const stack = await startProcessStack({
    storage: 's3',
    gateways: 2,
    replicas: { lock: 2, commit: 2 },
    env: FAULT_SUITE_ENV,
    infrastructure: { databaseUrl, natsUrl: nats.url, redisUrl: redis.url, s3Endpoint: storage.url },
  });
  return {
    postgres,
    nats,
    redis,
    storage,
    stack,
    databaseName,
    async sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query<R>(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    async stop() {
      storage.setMode('pass');
      if (!nats.running()) await nats.restart();
      if (!redis.running()) await redis.restart();
      if (!postgres.running()) await postgres.startServer();
      try {
        await stack.stop();
      } finally {
        await Promise.allSettled([postgres.stop(), nats.stop(), redis.stop(), storage.close()]);
      }
    },
  };
}
