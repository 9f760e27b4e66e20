import pg from 'pg';
import {
  freePort,
  startPrivatePostgres,
  startPrivateRedis,
  startStorageFaultProxy,
  testS3Options,
  uniqueName,
  untilAllReady,
  type PrivatePostgres,
  type PrivateRedis,
  type ServiceProcess,
  type StorageFaultProxy,
} from '@lode/testkit';
import { spawnServiceProcess, startProcessStack, type ProcessStack, type StackService } from '../testing/process-stack.ts';
import { BUS_TIMEOUT_MS, STARTUP_WAIT_MS } from './deadlines.ts';
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
 * death was found harmful, and two gateways, as a load balancer would spread clients.
 */
export interface FaultSystem {
  postgres: PrivatePostgres;
  nats: MonitoredNats;
  redis: PrivateRedis;
  storage: StorageFaultProxy;
  stack: ProcessStack;
  databaseName: string;
  /** Every service process of the system now: the stack's, and the replicas a scenario added. */
  processes(): ServiceProcess[];
  /** Starts one more replica of a service with the stack's settings; resolves once it answers its own /readyz. */
  addReplica(service: StackService): Promise<ServiceProcess>;
  /** Stops (SIGTERM) a replica addReplica started, after taking it out of processes(); resolves with its exit code. */
  removeReplica(replica: ServiceProcess): Promise<number | null>;
  /** A connection to the system's database for the checker's SQL; reconnects after Postgres faults. */
  sql<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

export async function startFaultSystem(): Promise<FaultSystem> {
  const [postgres, nats, redis, storage] = await Promise.all([
    startPrivatePostgres(),
    startMonitoredNats(),
    startPrivateRedis(),
    startStorageFaultProxy(testS3Options().endpoint!),
  ]);
  const databaseName = uniqueName('lode_faults');
  const databaseUrl = await postgres.createDatabase(databaseName);
  const stack = await startProcessStack({
    storage: 's3',
    gateways: 2,
    replicas: { lock: 2, commit: 2 },
    env: FAULT_SUITE_ENV,
    infrastructure: { databaseUrl, natsUrl: nats.url, redisUrl: redis.url, s3Endpoint: storage.url },
  });
  const added: ServiceProcess[] = [];
  return {
    postgres,
    nats,
    redis,
    storage,
    stack,
    databaseName,
    processes: () => [...stack.all, ...added],
    async addReplica(service) {
      const replica = spawnServiceProcess(service, { ...stack.env, LODE_OPS_PORT: String(await freePort()) });
      added.push(replica);
      await untilAllReady([replica], { timeoutMs: STARTUP_WAIT_MS, restarts: 0 });
      return replica;
    },
    async removeReplica(replica) {
      const at = added.indexOf(replica);
      if (at < 0) throw new Error(`${replica.name} (${replica.opsUrl}) is not a replica a scenario added`);
      added.splice(at, 1);
      return replica.stop();
    },
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
        await Promise.all(added.splice(0).map((p) => p.stop()));
        await stack.stop();
      } finally {
        await Promise.allSettled([postgres.stop(), nats.stop(), redis.stop(), storage.close()]);
      }
    },
  };
}
