import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { RateLimit, TakeResult, WriteLimiter } from './limiter.ts';

const script = readFileSync(path.join(import.meta.dirname, 'token-bucket.lua'), 'utf8');

type BucketRedis = Redis & { takeToken(key: string, rate: number, burst: number): Promise<[number, number]> };

/** The limiter shared by every gateway replica: one EVALSHA per write request. */
export class RedisWriteLimiter implements WriteLimiter {
  readonly #redis: BucketRedis;
  readonly #prefix: string;

  constructor(url: string, prefix = 'lode:ratelimit:') {
    const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    redis.defineCommand('takeToken', { numberOfKeys: 1, lua: script });
    this.#redis = redis as BucketRedis;
    this.#prefix = prefix;
  }

  async take(projectId: string, limit: RateLimit): Promise<TakeResult> {
    const [allowed, retryMs] = await this.#redis.takeToken(this.#prefix + projectId, limit.perSecond, limit.burst);
    return { allowed: allowed === 1, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    await this.#redis.quit();
  }
}
