import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs, settleAttempt, type AttemptResult } from './retry-plan.ts';

const policy = { baseMs: 1000, windowMs: 24 * 3_600_000 };
const now = new Date('2026-11-24T00:00:00Z');
const settle = (result: AttemptResult, attempts = 1, createdAt = now) => settleAttempt(result, { attempts, createdAt, now, policy, random: 0.5 });
const answered = (status: number, retryAfter: string | null = null): AttemptResult => ({ kind: 'answered', status, retryAfter });

describe('settleAttempt', () => {
  it('delivers on any 2xx', () => {
    expect(settle(answered(204))).toEqual({ status: 'delivered', lastStatus: 204 });
  });

  it('retries 5xx, 429 and unreachable endpoints with a doubling, jittered delay', () => {
    for (const result of [answered(503), answered(429), { kind: 'unreachable', error: 'timed out' } as const]) {
      const first = settle(result, 1);
      const third = settle(result, 3);
      expect(first.status).toBe('pending');
      if (first.status !== 'pending' || third.status !== 'pending') continue;
      expect(first.nextAttemptAt.getTime() - now.getTime()).toBe(750);
      expect(third.nextAttemptAt.getTime() - now.getTime()).toBe(3000);
    }
  });

  it('honours Retry-After in seconds and as a date', () => {
    const seconds = settle(answered(429, '120'));
    expect(seconds.status === 'pending' && seconds.nextAttemptAt.getTime() - now.getTime()).toBe(120_000);
    const date = settle(answered(503, new Date(now.getTime() + 30_000).toUTCString()));
    expect(date.status === 'pending' && date.nextAttemptAt.getTime() - now.getTime()).toBe(30_000);
  });

  it('never retries sooner than the backoff, whatever Retry-After asks (0, a past date, less than the backoff)', () => {
    const delayOf = (settlement: ReturnType<typeof settle>) =>
      settlement.status === 'pending' ? settlement.nextAttemptAt.getTime() - now.getTime() : undefined;
    expect(delayOf(settle(answered(429, '0')))).toBe(750);
    expect(delayOf(settle(answered(503, new Date(now.getTime() - 60_000).toUTCString())))).toBe(750);
    expect(delayOf(settle(answered(429, '1'), 3))).toBe(3000);
  });

  it('disables the endpoint on 410 and fails other 4xx at once', () => {
    expect(settle(answered(410))).toMatchObject({ status: 'failed', disableWebhook: true });
    expect(settle(answered(400))).toMatchObject({ status: 'failed', disableWebhook: false, lastStatus: 400 });
    expect(settle({ kind: 'refused', error: 'private address' })).toMatchObject({ status: 'failed', disableWebhook: false });
  });

  it('gives up once the next attempt would fall outside the window', () => {
    const createdAt = new Date(now.getTime() - policy.windowMs + 500);
    expect(settle(answered(500), 1, createdAt)).toMatchObject({ status: 'failed' });
  });
});

describe('backoff', () => {
  it('is capped at an hour and jittered within [0.5, 1) of the exponential delay', () => {
    expect(backoffMs(policy, 40, 0.999)).toBeLessThanOrEqual(3_600_000);
    expect(backoffMs(policy, 2, 0)).toBe(1000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});
