import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, isRetryableStatus, retryDelayMs } from './retry.ts';

describe('retry policy', () => {
  it('retries what says "later" (429, 502, 503, 504, a commit still running) and nothing else', () => {
    for (const status of [429, 502, 503, 504]) expect(isRetryableStatus(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 413, 422, 500]) expect(isRetryableStatus(status)).toBe(false);
    expect(isRetryableStatus(409, 'idempotency_in_progress')).toBe(true);
  });

  it('waits as long as Retry-After says, capped', () => {
    expect(retryDelayMs(DEFAULT_RETRY, 1, '3')).toBe(3000);
    expect(retryDelayMs(DEFAULT_RETRY, 4, '0')).toBe(0);
    expect(retryDelayMs({ ...DEFAULT_RETRY, maxDelayMs: 5000 }, 1, '120')).toBe(5000);
  });

  it('backs off exponentially with jitter between half and all of the ceiling without Retry-After', () => {
    const policy = { attempts: 6, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelayMs(policy, 1, null, () => 0)).toBe(50);
    expect(retryDelayMs(policy, 1, null, () => 1)).toBe(100);
    expect(retryDelayMs(policy, 3, null, () => 1)).toBe(400);
    expect(retryDelayMs(policy, 10, null, () => 1)).toBe(1000);
    expect(retryDelayMs(policy, 2, 'soon', () => 0)).toBe(100);
  });
});
