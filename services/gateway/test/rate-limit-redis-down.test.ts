import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '@lode/testkit';
import { RedisWriteLimiter } from '../src/ratelimit/redis-limiter.ts';

/** Polls until the limiter counts in Redis (a take on a project of its own each time); the deadline only guards a hang. */
async function untilCountingInRedis(limiter: RedisWriteLimiter): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let i = 0; ; i++) {
    await limiter.take(`warm-up-${i}`, { perSecond: 1000, burst: 1000 });
    if (!limiter.failingOpen) return;
    if (Date.now() > deadline) throw new Error('the limiter never reached Redis');
    await delay(50);
  }
}

/**
 * With Redis stopped, every write through the gateway once answered 500 (the limiter's
 * rejection reached the error handler as a bug). The limit fails open to a bucket per gateway.
 */
describe('the Redis write limiter while Redis is down', () => {
  let redis: PrivateRedis;
  let limiter: RedisWriteLimiter;
  const tight = { perSecond: 0.001, burst: 2 };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    limiter = new RedisWriteLimiter(redis.url);
    await untilCountingInRedis(limiter);
  });
  afterAll(async () => {
    await limiter?.close();
    await redis?.stop();
  });

  it('counts in a bucket of its own gateway, which still limits, and in Redis again once it is back', async () => {
    expect((await Promise.all([1, 2, 3].map(() => limiter.take('shared', tight)))).map((t) => t.allowed)).toEqual([true, true, false]);

    await redis.kill();
    const whileDown = [];
    for (let i = 0; i < 3; i++) whileDown.push(await limiter.take('local', tight));
    expect(limiter.failingOpen).toBe(true);
    expect(whileDown.map((t) => t.allowed)).toEqual([true, true, false]);
    expect(whileDown[2].retryAfterSeconds).toBeGreaterThanOrEqual(1);

    await redis.restart();
    await untilCountingInRedis(limiter);
    // A restarted Redis holds no buckets (nothing is persisted): the project starts with its burst.
    expect((await limiter.take('shared', tight)).allowed).toBe(true);
  });
});
