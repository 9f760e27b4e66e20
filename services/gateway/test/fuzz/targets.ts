import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, Seeder, spawnService, untilReady, waitForReady, type ServiceProcess } from '@lode/testkit';
import { startProcessStack } from '@lode/system/testing';

export type FuzzMode = 'embedded' | 'multi-process';

/** A running Lode for the fuzz: where to send, who to seed with, and how to tell it survived. */
export interface FuzzTarget {
  mode: FuzzMode;
  apiPort: number;
  opsPort: number;
  adminToken: string;
  seeder: Seeder;
  processes: ServiceProcess[];
  /** What is wrong with the processes now: one exited, or a readiness probe failed. Empty when all is well. */
  health(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Writes and failed authentications far above what the fuzz sends, so its requests reach validation
 * and the services instead of a 429; and a sync waits for its read model as long as a loaded machine may need, so a 503
 * `sync_catching_up` means a stuck projection, not a slow one.
 */
const FUZZ_SETTINGS = {
  LODE_WRITE_RATE_PER_SECOND: '1000000',
  LODE_WRITE_RATE_BURST: '1000000',
  LODE_AUTH_FAILURES_PER_ADDRESS: '1000000',
  LODE_AUTH_FAILURES_PER_KEY: '1000000',
  LODE_SYNC_CATCH_UP_MS: '60000',
};

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

function portOf(url: string | undefined, what: string): number {
  if (!url) throw new Error(`${what} has no known port`);
  return Number(new URL(url).port);
}

async function probe(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url);
    return res.status === 200 ? undefined : `${url} answered ${res.status} ${await res.text()}`;
  } catch (error) {
    return `${url} did not answer: ${(error as Error).message}`;
  }
}

async function healthOf(processes: readonly ServiceProcess[], readyz: string): Promise<string[]> {
  const exited = processes
    .filter((p) => !p.running())
    .map((p) => `${p.name} (pid ${p.child.pid}) exited with ${p.child.exitCode ?? p.child.signalCode}:\n${p.output().slice(-3000)}`);
  const probes = await Promise.all([readyz, ...processes.filter((p) => p.running()).map((p) => `${p.opsUrl}/readyz`)].map(probe));
  return [...exited, ...probes.filter((p): p is string => p !== undefined)];
}

/** `npm start`'s process (services/embedded/src/main.ts under Node 24 with the telemetry hook), on its own data directory and ports. */
async function startEmbedded(): Promise<FuzzTarget> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-fuzz-'));
  // As root, embedded Postgres runs initdb as its own OS user, which must reach the data directory.
  await chmod(dataDir, 0o755);
  const [apiPort, opsPort] = await distinctFreePorts(2);
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const adminToken = randomBytes(24).toString('hex');
  const child = spawnService('embedded', {
    PORT: String(apiPort),
    LODE_OPS_PORT: String(opsPort),
    LODE_DATA_DIR: dataDir,
    LODE_ADMIN_TOKEN: adminToken,
    LODE_PUBLIC_URL: baseUrl,
    ...FUZZ_SETTINGS,
  });
  const stop = async () => {
    await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await untilReady(child, { restarts: 0 });
    await waitForReady(baseUrl, 90_000);
  } catch (error) {
    await stop();
    throw new Error(`embedded Lode did not start: ${(error as Error).message}\n${child.output()}`, { cause: error });
  }
  return {
    mode: 'embedded',
    apiPort,
    opsPort,
    adminToken,
    seeder: new Seeder(baseUrl, adminToken),
    processes: [child],
    health: () => healthOf([child], `${baseUrl}/readyz`),
    stop,
  };
}

/** Gateway and every service as their own processes on NATS, Redis and the machine's Postgres, blobs on local disk. */
async function startMultiProcess(): Promise<FuzzTarget> {
  const stack = await startProcessStack({ storage: 'local', env: FUZZ_SETTINGS });
  return {
    mode: 'multi-process',
    apiPort: portOf(stack.baseUrl, 'the gateway'),
    opsPort: portOf(stack.processes.gateway.opsUrl, 'the gateway’s ops server'),
    adminToken: stack.env.LODE_ADMIN_TOKEN,
    seeder: stack.seed,
    processes: stack.all,
    health: () => healthOf(stack.all, `${stack.baseUrl}/readyz`),
    stop: () => stack.stop(),
  };
}

export function startTarget(mode: FuzzMode): Promise<FuzzTarget> {
  return mode === 'embedded' ? startEmbedded() : startMultiProcess();
}
