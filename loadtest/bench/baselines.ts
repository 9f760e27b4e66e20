import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { NODE_24 } from '@lode/testkit';
import type { HttpClient } from './client.ts';
import { latencyAndThroughput, type SmallCallShape } from './load.ts';
import type { Figures } from './stats.ts';

/**
 * The machine's physical baselines: what one hop of each kind costs with nothing of Lode in it.
 * `http` is the bare node:http floor every API call pays; `express` is the framework's floor, the
 * reference of validate-key's throughput target; `nats` a request-reply round trip; `pg` a
 * primary-key SELECT; `redis` an EVALSHA like the gateway's rate limiter.
 */
export const BASELINE_NAMES = ['http', 'express', 'nats', 'pg', 'redis'] as const;
export type BaselineName = (typeof BASELINE_NAMES)[number];
export type Baselines = Record<BaselineName, Figures>;

export interface BaselineTargets {
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string;
}

/** One call of each baseline, ready to be timed; close() drops what connect made. */
export interface BaselineCalls {
  call: Record<BaselineName, () => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Starts the baseline servers and connects to NATS, Postgres (a tiny unlogged table of its own,
 * read by primary key over a pool like a service's) and Redis (one connection, as the gateway's
 * limiter has; a trivial script, so the figure is Redis's round trip).
 */
export async function connectBaselines(http: HttpClient, targets: BaselineTargets): Promise<BaselineCalls> {
  const server = await startBaselineServer(targets.natsUrl);
  const nc = await connect({ servers: targets.natsUrl.split(',') });
  const pool = new pg.Pool({ connectionString: targets.databaseUrl, max: 8 });
  // An idle client losing its connection (the deployment's Postgres stopping first at shutdown)
  // would otherwise be an unhandled 'error' event that ends the bench before it reports.
  pool.on('error', () => undefined);
  const table = `bench_baseline_${randomBytes(4).toString('hex')}`;
  const redis = new Redis(targets.redisUrl, { maxRetriesPerRequest: 2 });
  const key = `lode:bench:baseline:${randomBytes(4).toString('hex')}`;
  const close = async () => {
    await server.stop();
    await nc.close();
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
    await redis.del(key);
    await redis.quit();
  };
  try {
    await pool.query(`CREATE UNLOGGED TABLE ${table} (id int PRIMARY KEY, name text NOT NULL)`);
    await pool.query(`INSERT INTO ${table} SELECT i, 'row ' || i FROM generate_series(1, 1000) AS i`);
    const select = `SELECT name FROM ${table} WHERE id = $1`;
    const sha = (await redis.script('LOAD', "return redis.call('INCR', KEYS[1])")) as string;
    // The same request as validate-key's: a POST with no body, a key and a device id.
    const headers = { authorization: `Bearer lode_${randomBytes(16).toString('hex')}`, 'x-device-id': 'device-baseline' };
    const post = (port: number) => {
      const url = new URL(`http://127.0.0.1:${port}/`);
      return async () => {
        const res = await http.request(url, 'POST', headers);
        if (res.status !== 200) throw new Error(`baseline answered ${res.status}`);
      };
    };
    const payload = new TextEncoder().encode(JSON.stringify({ projectId: randomBytes(16).toString('hex'), refs: [] }));
    const call: BaselineCalls['call'] = {
      http: post(server.httpPort),
      express: post(server.expressPort),
      nats: async () => {
        await nc.request(server.subject, payload, { timeout: 5000 });
      },
      pg: async () => {
        const { rowCount } = await pool.query(select, [1 + Math.floor(Math.random() * 1000)]);
        if (rowCount !== 1) throw new Error('the baseline row is missing');
      },
      redis: async () => {
        await redis.evalsha(sha, 1, key);
      },
    };
    return { call, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Each baseline measured as a small call: serial latency, then throughput with the same in-flight count. */
export async function measureBaselines(baselines: BaselineCalls, shape: SmallCallShape): Promise<Baselines> {
  const measured: Partial<Baselines> = {};
  for (const name of BASELINE_NAMES) measured[name] = await latencyAndThroughput(baselines.call[name], shape);
  return measured as Baselines;
}

interface BaselineServer {
  httpPort: number;
  expressPort: number;
  subject: string;
  stop(): Promise<void>;
}

async function startBaselineServer(natsUrl: string): Promise<BaselineServer> {
  const child = spawn(NODE_24, [path.join(import.meta.dirname, 'baseline-server.ts'), natsUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([once(lines, 'line'), exited.then(() => [undefined])])) as [string | undefined];
  lines.close();
  if (first === undefined) throw new Error('the baseline server exited before listening');
  const ports = JSON.parse(first) as Omit<BaselineServer, 'stop'>;
  return {
    ...ports,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
