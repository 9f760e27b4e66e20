import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Logger } from '@lode/telemetry';
import type { RateLimit, TakeResult, WriteLimiter } from './limiter.ts';
import { MemoryWriteLimiter } from './memory-limiter.ts';
import { lotSize, WriteLots } from './write-lots.ts';

const script = readFileSync(path.join(import.meta.dirname, 'token-bucket.lua'), 'utf8');

/** How long a write waits for Redis's answer before this gateway's own bucket decides instead. */
const REDIS_ANSWER_MS = 500;

type BucketRedis = Redis & { takeToken(key: string, rate: number, burst: number, count: number): Promise<[number, number]> };

/**
 * The limiter shared by every gateway replica: one EVALSHA per step of a failed-authentication
 * budget, and per write of a project whose burst is too small for lots; the other projects' writes
 * are counted from lots of tokens taken from their buckets ahead (write-lots.ts).
 *
 * The limit fails open: while Redis is unreachable (down, restarting, or slower than
 * REDIS_ANSWER_MS), each gateway counts writes in a bucket of its own with the same rate and burst,
 * so a project gets at most one budget per gateway instead of one in all. The limit keeps projects
 * from crowding each other out; it guards no data, so a Redis outage must not become an outage of
 * every write (failing closed would answer 503 to every project for as long as Redis is down).
 * The budgets of failed authentications fail open the same way: authentication never waits on Redis,
 * and each gateway still throttles the failures it sees itself.
 * Nothing is queued for a Redis that is away: a write never waits on its reconnection.
 */
export class RedisWriteLimiter implements WriteLimiter {
  readonly #redis: BucketRedis;
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  readonly #fallback = new MemoryWriteLimiter();
  readonly #lots: WriteLots;
  #failingOpen = false;

  constructor(url: string, options: { prefix?: string; logger?: Logger; lotLifetimeMs?: number } = {}) {
    const redis = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: REDIS_ANSWER_MS, lazyConnect: false });
    // Connection errors are what take() falls back on; ioredis would print each one otherwise.
    redis.on('error', () => undefined);
    redis.defineCommand('takeToken', { numberOfKeys: 1, lua: script });
    this.#redis = redis as BucketRedis;
    this.#prefix = options.prefix ?? 'lode:ratelimit:';
    this.#logger = options.logger;
    this.#lots = new WriteLots((bucket, limit, count) => this.#step(bucket, limit, count), options.lotLifetimeMs);
  }

  /**
   * Resolves once Redis is connected, at once if it is: until then every bucket counts in this
   * gateway, so a caller that needs counts shared from its first request (a test stack) waits here.
   */
  async connected(): Promise<void> {
    if (this.#redis.status !== 'ready') await once(this.#redis, 'ready');
  }

  /** Whether buckets are counted per gateway right now, Redis being unreachable. */
  get failingOpen(): boolean {
    return this.#failingOpen;
  }

  async take(bucket: string, limit: RateLimit): Promise<TakeResult> {
    const answer = await this.#step(bucket, limit, 1);
    if (!answer) return this.#fallback.take(bucket, limit);
    const [taken, retryMs] = answer;
    return { allowed: taken === 1, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
  }

  async takeWrite(project: string, limit: RateLimit): Promise<TakeResult> {
    const size = lotSize(limit);
    if (size < 2) return this.take(project, limit);
    return (await this.#lots.take(project, limit, size)) ?? this.#fallback.take(project, limit);
  }

  async refund(bucket: string, limit: RateLimit): Promise<void> {
    if (!(await this.#step(bucket, limit, -1))) await this.#fallback.refund(bucket, limit);
  }

  /** Redis's answer, or undefined when it is unreachable (logged once per outage). */
  async #step(bucket: string, limit: RateLimit, count: number): Promise<[number, number] | undefined> {
    let answer: [number, number];
    try {
      answer = await this.#redis.takeToken(this.#prefix + bucket, limit.perSecond, limit.burst, count);
    } catch (error) {
      if (!this.#failingOpen)
        this.#logger?.warn({ err: error }, 'rate limits: Redis unreachable, counting writes and failed authentications in this gateway until it is back');
      this.#failingOpen = true;
      return undefined;
    }
    if (this.#failingOpen) this.#logger?.info('rate limits: Redis is back, writes and failed authentications are counted in it again');
    this.#failingOpen = false;
    return answer;
  }

  async close(): Promise<void> {
    await this.#lots.close();
    await this.#fallback.close();
    // quit() needs a connection; a Redis that is away, or went away before the client noticed, is simply let go.
    if (this.#redis.status === 'ready') await this.#redis.quit().catch(() => this.#redis.disconnect());
    else this.#redis.disconnect();
  }
}
