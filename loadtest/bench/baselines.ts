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

/** Each baseline measured as a small call: serial latency, then throughput with the same in-flight count. */
export async function measureBaselines(http: HttpClient, targets: BaselineTargets, shape: SmallCallShape): Promise<Baselines> {
  const server = await startBaselineServer(targets.natsUrl);
  try {
    // The same request as validate-key's: a POST with no body, a key and a device id.
    const headers = { authorization: `Bearer lode_${randomBytes(16).toString('hex')}`, 'x-device-id': 'device-baseline' };
    const post = (port: number) => {
      const url = new URL(`http://127.0.0.1:${port}/`);
      return async () => {
        const res = await http.request(url, 'POST', headers);
        if (res.status !== 200) throw new Error(`baseline answered ${res.status}`);
      };
    };
    return {
      http: await latencyAndThroughput(post(server.httpPort), shape),
      express: await latencyAndThroughput(post(server.expressPort), shape),
      nats: await natsRoundTrip(targets.natsUrl, server.subject, shape),
      pg: await pgPrimaryKeySelect(targets.databaseUrl, shape),
      redis: await redisEvalsha(targets.redisUrl, shape),
    };
  } finally {
    await server.stop();
  }
}

async function natsRoundTrip(url: string, subject: string, shape: SmallCallShape): Promise<Figures> {
  const nc = await connect({ servers: url.split(',') });
  try {
    const payload = new TextEncoder().encode(JSON.stringify({ projectId: randomBytes(16).toString('hex'), refs: [] }));
    return await latencyAndThroughput(async () => {
      await nc.request(subject, payload, { timeout: 5000 });
    }, shape);
  } finally {
    await nc.close();
  }
}

/** A tiny table of its own (unlogged, 1,000 rows), read by primary key over a pool like a service's. */
async function pgPrimaryKeySelect(databaseUrl: string, shape: SmallCallShape): Promise<Figures> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  const table = `bench_baseline_${randomBytes(4).toString('hex')}`;
  try {
    await pool.query(`CREATE UNLOGGED TABLE ${table} (id int PRIMARY KEY, name text NOT NULL)`);
    await pool.query(`INSERT INTO ${table} SELECT i, 'row ' || i FROM generate_series(1, 1000) AS i`);
    const text = `SELECT name FROM ${table} WHERE id = $1`;
    return await latencyAndThroughput(async () => {
      const { rowCount } = await pool.query(text, [1 + Math.floor(Math.random() * 1000)]);
      if (rowCount !== 1) throw new Error('the baseline row is missing');
    }, shape);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  }
}

/** One connection, as the gateway's limiter has; the script is trivial so the figure is Redis's round trip. */
async function redisEvalsha(url: string, shape: SmallCallShape): Promise<Figures> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  const key = `lode:bench:baseline:${randomBytes(4).toString('hex')}`;
  try {
    const sha = (await redis.script('LOAD', "return redis.call('INCR', KEYS[1])")) as string;
    return await latencyAndThroughput(async () => {
      await redis.evalsha(sha, 1, key);
    }, shape);
  } finally {
    await redis.del(key);
    await redis.quit();
  }
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
