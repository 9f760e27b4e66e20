import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectNats, JetStreamEvents } from '@lode/bus';
import { createLogger } from '@lode/telemetry';
import {
  assertNoUnhandledRejections,
  createTestDatabase,
  freePorts,
  Seeder,
  spawnService,
  TEST_NATS_URL,
  TEST_REDIS_URL,
  testS3Options,
  uniqueName,
  untilAllReady,
  waitForReady,
  type ServiceProcess,
} from '@lode/testkit';
import { SERVICE_NAMES, type ServiceName } from '../src/names.ts';
import { SERVICE_ENTRY } from '../src/registry.ts';

/** The memory limit of each process's container in the base manifests (k8s/base/process). */
export const CONTAINER_MEMORY_LIMIT = '512Mi';
/**
 * The V8 heap each process has in that container, so that tests and the bench run the services as
 * deployed: Node sizes its heap from the cgroup's memory limit, and under 512 MiB it picks exactly
 * these (docs/performance.md, the heap the services are deployed with). On a host without a limit
 * Node sizes for the whole machine, and a process's RSS then follows V8's roomier heuristics rather
 * than what it holds: a million-file commit's parts would make a service grow several times as much
 * as it does with these.
 */
export const CONTAINER_HEAP_FLAGS = '--max-old-space-size=256 --max-semi-space-size=1';

/** Every service of the registry, each as its own process. */
export const STACK_SERVICES = SERVICE_NAMES;
export type StackService = ServiceName;

export interface ProcessStackOptions {
  storage: 'local' | 's3';
  /** Processes per service, all in its queue group: one number for every service, or per service. 1 by default. */
  replicas?: number | Partial<Record<StackService, number>>;
  /** Gateways, each on its own port, sharing the bus and Redis. 1 by default. */
  gateways?: number;
  /** Settings under test, for every process. */
  env?: Record<string, string>;
  /**
   * Servers of the test's own (the fault suite kills and restarts them) instead of the machine's
   * shared ones and a fresh database on its Postgres; the test creates and drops that database.
   */
  infrastructure?: { databaseUrl: string; natsUrl: string; redisUrl: string; s3Endpoint?: string };
}

export interface ProcessStack {
  /** The first gateway; local-storage URLs point at it. */
  baseUrl: string;
  /** Every gateway, in the order of `gateways`. */
  gatewayUrls: string[];
  seed: Seeder;
  gateways: ServiceProcess[];
  /** Every process of each service; each has its own ops port (`opsUrl`). */
  replicas: Record<StackService, ServiceProcess[]>;
  /** The first gateway and the first process of each service. */
  processes: Record<'gateway' | StackService, ServiceProcess>;
  /** The same as `replicas.commit`. */
  commitReplicas: ServiceProcess[];
  /** Gateways first, then each service's processes. */
  all: ServiceProcess[];
  databaseUrl: string;
  /** Environment every process got, less its own ports: a test can start more replicas with it. */
  env: Record<string, string>;
  /** SIGTERM to every process; resolves with their exit codes, in the order of `all`. */
  stopProcesses(): Promise<(number | null)[]>;
  /** Stops and cleans up everything, then fails if any process reported an unhandled rejection. */
  stop(): Promise<void>;
}

/** Gateways and every service as separate OS processes on NATS, as deployed, against a fresh database and namespace. */
export async function startProcessStack(options: ProcessStackOptions): Promise<ProcessStack> {
  const own = options.infrastructure;
  const database = own ? { url: own.databaseUrl, drop: async () => undefined } : await createTestDatabase();
  const natsUrl = own?.natsUrl ?? TEST_NATS_URL;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-procs-'));
  const gatewayCount = options.gateways ?? 1;
  const counts = STACK_SERVICES.map((name) => replicaCount(options.replicas, name));
  // Every process gets its own ops port (one host, many ops servers, each probed on its own); gateways an API port too.
  const ports = await freePorts(2 * gatewayCount + counts.reduce((a, b) => a + b, 0));
  const gatewayPorts = ports.splice(0, gatewayCount);
  const gatewayUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
  const adminToken = uniqueName('admin-token');
  const s3 = testS3Options();
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: natsUrl,
    REDIS_URL: own?.redisUrl ?? TEST_REDIS_URL,
    LODE_BUS_NAMESPACE: uniqueName('procs'),
    LODE_DATA_DIR: dataDir,
    LODE_STORAGE_SECRET: randomBytes(32).toString('hex'),
    LODE_PUBLIC_URL: gatewayUrls[0],
    LODE_ADMIN_TOKEN: adminToken,
    LODE_CURSOR_SECRET: randomBytes(32).toString('hex'),
    LODE_SECRETS_KEY: randomBytes(32).toString('base64'),
    // Every stack's clients come from 127.0.0.1 and count in the one test Redis: failed-authentication
    // budgets out of the way, so one test's bad keys never throttle another's first requests.
    LODE_AUTH_FAILURES_PER_ADDRESS: '1000000',
    LODE_AUTH_FAILURES_PER_KEY: '1000000',
    NODE_OPTIONS: [process.env.NODE_OPTIONS, CONTAINER_HEAP_FLAGS].filter(Boolean).join(' '),
    ...(options.storage === 's3'
      ? {
          S3_BUCKET: s3.bucket,
          S3_ENDPOINT: own?.s3Endpoint ?? s3.endpoint!,
          S3_REGION: s3.region,
          S3_ACCESS_KEY_ID: s3.accessKeyId,
          S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
          S3_FORCE_PATH_STYLE: 'true',
          S3_CREATE_BUCKET: 'true',
        }
      : {}),
    ...options.env,
  };
  // spawnService records the secrets among each process's settings (the admin token among them).
  const opsPort = () => String(ports.pop());
  const gateways = gatewayPorts.map((port) => spawnService('gateway', { ...env, PORT: String(port), LODE_OPS_PORT: opsPort() }));
  const replicas = Object.fromEntries(
    STACK_SERVICES.map((name, i) => [name, Array.from({ length: counts[i] }, () => spawnServiceProcess(name, { ...env, LODE_OPS_PORT: opsPort() }))]),
  ) as Record<StackService, ServiceProcess[]>;
  const all = [...gateways, ...STACK_SERVICES.flatMap((name) => replicas[name])];
  // Each process's own /readyz says that it in particular has subscribed; a gateway's API answers
  // once Redis and one process of every service do.
  try {
    await untilAllReady(all);
    await Promise.all(gatewayUrls.map((url) => waitForReady(url, 90_000)));
  } catch (error) {
    const outputs = all.map((p) => `[${p.name} ${p.opsUrl}] ${p.output()}`).join('\n');
    await Promise.all(all.map((p) => p.kill()));
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${outputs}`, { cause: error });
  }
  const stopProcesses = () => Promise.all(all.map((p) => p.stop()));
  return {
    baseUrl: gatewayUrls[0],
    gatewayUrls,
    seed: new Seeder(gatewayUrls[0], adminToken),
    gateways,
    replicas,
    processes: {
      gateway: gateways[0],
      ...(Object.fromEntries(STACK_SERVICES.map((name) => [name, replicas[name][0]])) as Record<StackService, ServiceProcess>),
    },
    commitReplicas: replicas.commit,
    all,
    databaseUrl: database.url,
    env,
    stopProcesses,
    async stop() {
      await stopProcesses();
      await deleteEventStream(natsUrl, env.LODE_BUS_NAMESPACE);
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
      // Each would have been a crash under Node's default: the test that provoked one fails.
      assertNoUnhandledRejections(all);
    },
  };
}

/** A service of the registry as its own OS process, started as the image starts it: the one service entry, SERVICE naming it. */
export function spawnServiceProcess(name: StackService, env: Record<string, string>): ServiceProcess {
  return spawnService(name, { ...env, SERVICE: name }, SERVICE_ENTRY);
}

function replicaCount(replicas: ProcessStackOptions['replicas'], service: StackService): number {
  return typeof replicas === 'number' ? replicas : (replicas?.[service] ?? 1);
}

/** The namespaced JetStream stream the commit replicas created, so runs leave nothing on the server. */
async function deleteEventStream(natsUrl: string, namespace: string): Promise<void> {
  const nc = await connectNats(natsUrl, 'test-cleanup');
  try {
    const events = await JetStreamEvents.connect(nc, createLogger('test', 'silent'), { namespace });
    await events.deleteStream();
  } finally {
    await nc.close();
  }
}
