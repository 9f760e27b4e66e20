import type { RateLimit, TakeResult, WriteLimiter } from './limiter.ts';

interface Bucket {
  tokens: number;
  ts: number;
  /** When it is full again, and so no different from a bucket never used. */
  fullAt: number;
}

/** Below this many buckets nothing is swept: a sweep walks them all. */
const SWEEP_FLOOR = 10_000;

/** The embedded-mode limiter: the same token bucket as the Redis script, in this process's memory. */
export class MemoryWriteLimiter implements WriteLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;
  #sweepAt = SWEEP_FLOOR;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async take(bucket: string, limit: RateLimit): Promise<TakeResult> {
    return this.#step(bucket, limit, 1);
  }

  takeWrite(project: string, limit: RateLimit): Promise<TakeResult> {
    return this.take(project, limit);
  }

  async refund(bucket: string, limit: RateLimit): Promise<void> {
    this.#step(bucket, limit, -1);
  }

  async close(): Promise<void> {
    this.#buckets.clear();
  }

  #step(name: string, limit: RateLimit, count: 1 | -1): TakeResult {
    const now = this.#now();
    this.#sweep(now);
    const bucket = this.#buckets.get(name) ?? { tokens: limit.burst, ts: now, fullAt: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (Math.max(0, now - bucket.ts) * limit.perSecond) / 1000);
    bucket.ts = now;
    let result: TakeResult;
    if (count < 0 || bucket.tokens >= 1) {
      bucket.tokens = Math.min(limit.burst, bucket.tokens - count);
      result = { allowed: true, retryAfterSeconds: 0 };
    } else {
      const retryMs = Math.ceil(((1 - bucket.tokens) * 1000) / limit.perSecond);
      result = { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
    }
    bucket.fullAt = now + ((limit.burst - bucket.tokens) * 1000) / limit.perSecond;
    this.#buckets.set(name, bucket);
    return result;
  }

  /**
   * Drops the buckets that have refilled, as Redis expires its keys: failed authentications name a
   * bucket per client address and per key tried, so without this memory would grow with every one.
   * The threshold doubles with what survives, so the sweeps cost a constant per take on average.
   */
  #sweep(now: number): void {
    if (this.#buckets.size < this.#sweepAt) return;
    for (const [name, bucket] of this.#buckets) if (bucket.fullAt <= now) this.#buckets.delete(name);
    this.#sweepAt = Math.max(SWEEP_FLOOR, 2 * this.#buckets.size);
  }
}
