import type { RateLimit, TakeResult, WriteLimiter } from './limiter.ts';

/** The embedded-mode limiter: the same token bucket as the Redis script, in this process's memory. */
export class MemoryWriteLimiter implements WriteLimiter {
  readonly #buckets = new Map<string, { tokens: number; ts: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async take(projectId: string, limit: RateLimit): Promise<TakeResult> {
    const now = this.#now();
    const bucket = this.#buckets.get(projectId) ?? { tokens: limit.burst, ts: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (Math.max(0, now - bucket.ts) * limit.perSecond) / 1000);
    bucket.ts = now;
    this.#buckets.set(projectId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    const retryMs = Math.ceil(((1 - bucket.tokens) * 1000) / limit.perSecond);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
  }

  async close(): Promise<void> {
    this.#buckets.clear();
  }
}
