import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Logger } from '@lode/telemetry';
import type { RateLimit, TakeResult, WriteLimiter } from './limiter.ts';
import { MemoryWriteLimiter } from './memory-limiter.ts';

const script = readFileSync(path.join(import.meta.dirname, 'token-bucket.lua'), 'utf8');

/** How long a write waits for Redis's answer before this gateway's own bucket decides instead. */
const REDIS_ANSWER_MS = 500;

type BucketRedis = Redis & { takeToken(key: string, rate: number, burst: number): Promise<[number, number]> };

/**
 * The limiter shared by every gateway replica: one EVALSHA per write request.
 *
 * The limit fails open: while Redis is unreachable (down, restarting, or slower than
 * REDIS_ANSWER_MS), each gateway counts writes in a bucket of its own with the same rate and burst,
 * so a project gets at most one budget per gateway instead of one in all. The limit keeps projects
 * from crowding each other out; it guards no data, so a Redis outage must not become an outage of
 * every write (failing closed would answer 503 to every project for as long as Redis is down).
 * Nothing is queued for a Redis that is away: a write never waits on its reconnection.
 */
export class RedisWriteLimiter implements WriteLimiter {
  readonly #redis: BucketRedis;
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  readonly #fallback = new MemoryWriteLimiter();
  #failingOpen = false;

  constructor(url: string, options: { prefix?: string; logger?: Logger } = {}) {
    const redis = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: REDIS_ANSWER_MS, lazyConnect: false });
    // Connection errors are what take() falls back on; ioredis would print each one otherwise.
    redis.on('error', () => undefined);
    redis.defineCommand('takeToken', { numberOfKeys: 1, lua: script });
    this.#redis = redis as BucketRedis;
    this.#prefix = options.prefix ?? 'lode:ratelimit:';
    this.#logger = options.logger;
  }

  /** Whether writes are counted per gateway right now, Redis being unreachable. */
  get failingOpen(): boolean {
    return this.#failingOpen;
  }

  async take(projectId: string, limit: RateLimit): Promise<TakeResult> {
    let answer: [number, number];
    try {
      answer = await this.#redis.takeToken(this.#prefix + projectId, limit.perSecond, limit.burst);
    } catch (error) {
      if (!this.#failingOpen) this.#logger?.warn({ err: error }, 'write rate limit: Redis unreachable, counting writes in this gateway until it is back');
      this.#failingOpen = true;
      return this.#fallback.take(projectId, limit);
    }
    if (this.#failingOpen) this.#logger?.info('write rate limit: Redis is back, writes are counted in it again');
    this.#failingOpen = false;
    const [allowed, retryMs] = answer;
    return { allowed: allowed === 1, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
  }

  async close(): Promise<void> {
    await this.#fallback.close();
    // quit() needs a connection; a Redis that is away is simply let go.
    if (this.#redis.status === 'ready') await this.#redis.quit();
    else this.#redis.disconnect();
  }
}
