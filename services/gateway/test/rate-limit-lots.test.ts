import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, uniqueName } from '@lode/testkit';
import { RedisWriteLimiter } from '../src/ratelimit/redis-limiter.ts';

/**
 * A project whose burst allows lots has its writes counted from tokens each gateway takes from the
 * shared bucket ahead: two limiters on one Redis stand for two gateways. The rate is too slow to
 * refill a token during a test, so a bucket holds exactly its burst.
 */
describe('write lots taken ahead from the shared bucket', () => {
  const limiters: RedisWriteLimiter[] = [];
  /** Gateways sharing one prefix, as replicas share Redis, each counting in Redis once it resolves. */
  const gateways = async (count: number, lotLifetimeMs?: number) => {
    const prefix = `${uniqueName('lots')}:`;
    const made = Array.from({ length: count }, () => new RedisWriteLimiter(TEST_REDIS_URL, { prefix, lotLifetimeMs }));
    limiters.push(...made);
    await Promise.all(made.map((l) => l.connected()));
    return made;
  };
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.close()));
  });
  const allowedOf = async (writes: Promise<{ allowed: boolean }>[]) => (await Promise.all(writes)).filter((w) => w.allowed).length;

  it('never lets more writes through two gateways than the bucket holds, and refuses the rest with Retry-After', async () => {
    const [a, b] = await gateways(2);
    const limit = { perSecond: 0.001, burst: 256 };
    let allowed = 0;
    for (let round = 0; round < 30; round++) {
      allowed += await allowedOf(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).takeWrite('p', limit)));
    }
    expect(allowed).toBe(256);
    const refused = await b.takeWrite('p', limit);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('refuses no write while the bucket has tokens, however many wait for one top-up', async () => {
    const [limiter] = await gateways(1);
    expect(await allowedOf(Array.from({ length: 200 }, () => limiter.takeWrite('p', { perSecond: 0.001, burst: 6_400 })))).toBe(200);
  });

  it("gives a lot's unspent tokens back to the bucket once the lot outlives its lifetime", async () => {
    const [a, b] = await gateways(2, 100);
    const limit = { perSecond: 0.001, burst: 256 };
    expect((await a.takeWrite('p', limit)).allowed).toBe(true);
    await delay(400);
    let allowed = 0;
    for (let i = 0; i < 260; i++) if ((await b.takeWrite('p', limit)).allowed) allowed++;
    expect(allowed).toBe(255);
  });

  it('counts a project whose burst is too small for lots write by write, shared at once', async () => {
    const [a, b] = await gateways(2);
    const limit = { perSecond: 0.001, burst: 3 };
    expect((await a.takeWrite('p', limit)).allowed).toBe(true);
    expect((await b.takeWrite('p', limit)).allowed).toBe(true);
    expect((await a.takeWrite('p', limit)).allowed).toBe(true);
    expect((await b.takeWrite('p', limit)).allowed).toBe(false);
  });
});
