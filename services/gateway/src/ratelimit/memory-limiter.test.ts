import { describe, expect, it } from 'vitest';
import { MemoryWriteLimiter } from './memory-limiter.ts';

describe('MemoryWriteLimiter', () => {
  it('allows a burst, refuses the next write, and refills at the steady rate', async () => {
    let now = 0;
    const limiter = new MemoryWriteLimiter(() => now);
    const limit = { perSecond: 2, burst: 3 };
    for (let i = 0; i < 3; i++) expect((await limiter.take('p', limit)).allowed).toBe(true);
    const refused = await limiter.take('p', limit);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 500;
    expect((await limiter.take('p', limit)).allowed).toBe(true);
    expect((await limiter.take('p', limit)).allowed).toBe(false);
  });

  it('keeps one bucket per project', async () => {
    const limiter = new MemoryWriteLimiter(() => 0);
    expect((await limiter.take('a', { perSecond: 1, burst: 1 })).allowed).toBe(true);
    expect((await limiter.take('b', { perSecond: 1, burst: 1 })).allowed).toBe(true);
    expect((await limiter.take('a', { perSecond: 1, burst: 1 })).allowed).toBe(false);
  });
});
