import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, Seeder, spawnService, TEST_NATS_URL, TEST_PG_URL, TEST_REDIS_URL, testS3Options, waitForReady, type ServiceProcess } from '@lode/testkit';
import { startProcessStack } from '@lode/system/testing';
import { embeddedDatabaseUrl } from '@lode/embedded/embedded-postgres';
import { LocalBlobStorage, localStorageDir, S3BlobStorage, type BlobStorage } from '@lode/storage';
import { localBlobWriter, s3BlobWriter, type BlobWriter } from './blobs.ts';

export type Mode = 'embedded' | 'nats' | 'external';

/** A running Lode to benchmark, and what the harness may touch besides its public API. */
export interface Deployment {
  mode: Mode;
  baseUrl: string;
  /** The admin API, for orgs, projects and keys. */
  seeder: Seeder;
  /**
   * Direct database and blob access for bulk seeding; absent when only the public APIs are reachable.
   * `blobStorage` is the deployment's storage driver, for the collector's bare DELETE baseline.
   */
  direct?: { databaseUrl: string; blobs: BlobWriter; blobStorage: BlobStorage };
  storage: 'local disk' | 'S3 (Swift s3api)' | 'storage unknown';
  /** The servers the physical baselines are measured against: the deployment's own where it has them. */
  baselineTargets: { databaseUrl: string; natsUrl: string; redisUrl: string };
  /** Processes whose memory the push-memory scenario watches. */
  processes: { name: string; pid: number }[];
  stop(): Promise<void>;
}

/** Generous per-project write limits: the benchmark measures work, not the token bucket's refusals. */
export const BENCH_WRITE_LIMIT = { perSecond: 100_000, burst: 1_000_000 };
/** A sync right after a 25,000-file commit waits for the read model; the default 5 s is for clients. */
const SYNC_CATCH_UP_MS = '120000';
/**
 * The gc scenario runs the upload service's object collector itself, alone, so that its rate is one
 * collector's: the deployment's own (and its reservation collector, which shares the interval) would
 * otherwise take swept objects in the middle of the run. A day: never within a bench.
 */
const GC_INTERVAL_MS = String(24 * 3_600_000);

/**
 * `npm start`'s composition as its own process: embedded Postgres, the in-process bus, the memory
 * rate limiter and blobs on local disk served by the gateway. Its own process, like a real one, so
 * the harness's client never shares an event loop with the server it measures.
 */
export async function startEmbedded(): Promise<Deployment> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-bench-'));
  // As root, embedded Postgres runs initdb as its own OS user, which must reach the data directory.
  await chmod(dataDir, 0o755);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('hex');
  const storageSecret = randomBytes(32).toString('hex');
  const child = spawnService('embedded', {
    PORT: String(port),
    LODE_DATA_DIR: dataDir,
    LODE_ADMIN_TOKEN: adminToken,
    LODE_STORAGE_SECRET: storageSecret,
    LODE_PUBLIC_URL: baseUrl,
    LODE_SYNC_CATCH_UP_MS: SYNC_CATCH_UP_MS,
    LODE_GC_INTERVAL_MS: GC_INTERVAL_MS,
  });
  const stop = async () => {
    await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  await ready(baseUrl, [child], stop);
  const databaseUrl = await embeddedDatabaseUrl(dataDir);
  const local = new LocalBlobStorage({ dir: localStorageDir(dataDir), secret: storageSecret, publicUrl: baseUrl });
  return {
    mode: 'embedded',
    baseUrl,
    seeder: new Seeder(baseUrl, adminToken),
    direct: { databaseUrl, blobs: localBlobWriter(local), blobStorage: local },
    storage: 'local disk',
    baselineTargets: { databaseUrl, natsUrl: TEST_NATS_URL, redisUrl: TEST_REDIS_URL },
    processes: [{ name: 'embedded', pid: pidOf(child) }],
    stop,
  };
}

/** One process per service on the machine's NATS, Postgres and Redis (the gateway's limiter), as deployed. */
export async function startNats(storage: 'local' | 's3'): Promise<Deployment> {
  const stack = await startProcessStack({ storage, env: { LODE_SYNC_CATCH_UP_MS: SYNC_CATCH_UP_MS, LODE_GC_INTERVAL_MS: GC_INTERVAL_MS } });
  let blobs: BlobWriter;
  let blobStorage: BlobStorage;
  if (storage === 's3') {
    const s3 = new S3BlobStorage(testS3Options(stack.env.S3_BUCKET));
    [blobs, blobStorage] = [s3BlobWriter(s3, stack.env.S3_BUCKET), s3];
  } else {
    const local = new LocalBlobStorage({ dir: localStorageDir(stack.env.LODE_DATA_DIR), secret: stack.env.LODE_STORAGE_SECRET, publicUrl: stack.baseUrl });
    [blobs, blobStorage] = [localBlobWriter(local), local];
  }
  return {
    mode: 'nats',
    baseUrl: stack.baseUrl,
    seeder: stack.seed,
    direct: { databaseUrl: stack.databaseUrl, blobs, blobStorage },
    storage: storage === 's3' ? 'S3 (Swift s3api)' : 'local disk',
    baselineTargets: { databaseUrl: stack.databaseUrl, natsUrl: TEST_NATS_URL, redisUrl: TEST_REDIS_URL },
    processes: stack.all.map((p) => ({ name: p.name, pid: pidOf(p) })),
    stop: () => stack.stop(),
  };
}

/**
 * A deployment somewhere else: setup goes through its admin and public APIs only, and the
 * baselines are this machine's (NATS_URL, DATABASE_URL, REDIS_URL or the test defaults).
 */
export async function targetExternal(baseUrl: string, adminToken: string): Promise<Deployment> {
  await waitForReady(baseUrl, 10_000);
  return {
    mode: 'external',
    baseUrl,
    seeder: new Seeder(baseUrl, adminToken),
    storage: 'storage unknown',
    baselineTargets: {
      databaseUrl: process.env.DATABASE_URL ?? TEST_PG_URL,
      natsUrl: process.env.NATS_URL ?? TEST_NATS_URL,
      redisUrl: process.env.REDIS_URL ?? TEST_REDIS_URL,
    },
    processes: [],
    stop: async () => undefined,
  };
}

/** Whether the machine's Swift s3api answers (scripts/swift-s3.sh starts it). */
export function s3Reachable(): Promise<boolean> {
  const endpoint = new URL(process.env.TEST_S3_ENDPOINT ?? 'http://127.0.0.1:8070');
  return new Promise((resolve) => {
    const socket = connect(Number(endpoint.port || 80), endpoint.hostname);
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function ready(baseUrl: string, processes: ServiceProcess[], stop: () => Promise<void>): Promise<void> {
  try {
    await waitForReady(baseUrl, 60_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${processes.map((p) => `[${p.name}] ${p.output()}`).join('\n')}`, { cause: error });
  }
}

function pidOf(p: ServiceProcess): number {
  if (p.child.pid === undefined) throw new Error(`${p.name} has no pid`);
  return p.child.pid;
}
