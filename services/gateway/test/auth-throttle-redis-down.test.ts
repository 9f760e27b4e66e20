import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { errors } from '@lode/errors';
import type { Logger } from '@lode/telemetry';
import { startPrivateRedis, type PrivateRedis } from '@lode/testkit';
import { FailureThrottle } from '../src/auth/failure-throttle.ts';
import { RedisWriteLimiter } from '../src/ratelimit/redis-limiter.ts';

/**
 * With Redis stopped, authentication must go on: the budgets of failures fail open to counting in
 * this gateway, which still throttles what it sees, and the outage is logged once.
 */
describe('failed-authentication budgets while Redis is down', () => {
  let redis: PrivateRedis;
  let limiter: RedisWriteLimiter;
  const logger = { warn: vi.fn(), info: vi.fn() };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    limiter = new RedisWriteLimiter(redis.url, { logger: logger as unknown as Logger });
    await limiter.connected();
  });
  afterAll(async () => {
    await limiter?.close();
    await redis?.stop();
  });

  it('lets correct credentials through, throttles failures per gateway, and logs the outage once', async () => {
    const throttle = new FailureThrottle(limiter, { perAddress: 2, perKey: 100, windowMs: 3_600_000 });
    const budgets = () => throttle.byAddress('admin-token', '192.0.2.1');
    const succeed = () => Promise.resolve('ok');
    const fail = () => Promise.reject(errors.unauthorized());

    await redis.kill();
    for (let i = 0; i < 5; i++) await expect(throttle.attempt(budgets(), succeed)).resolves.toBe('ok');
    expect(limiter.failingOpen).toBe(true);
    for (let i = 0; i < 2; i++) await expect(throttle.attempt(budgets(), fail)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(throttle.attempt(budgets(), succeed)).rejects.toMatchObject({ code: 'too_many_failed_attempts' });
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });
});
