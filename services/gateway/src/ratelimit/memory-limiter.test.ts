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

describe('MemoryWriteLimiter refunds and sweeps', () => {
  it('gives a token back, never above the burst', async () => {
    const limiter = new MemoryWriteLimiter(() => 0);
    const limit = { perSecond: 0.001, burst: 2 };
    await limiter.refund('p', limit);
    expect((await limiter.take('p', limit)).allowed).toBe(true);
    expect((await limiter.take('p', limit)).allowed).toBe(true);
    expect((await limiter.take('p', limit)).allowed).toBe(false);
    await limiter.refund('p', limit);
    expect((await limiter.take('p', limit)).allowed).toBe(true);
    expect((await limiter.take('p', limit)).allowed).toBe(false);
  });

  it('keeps a spent bucket through the sweep that drops refilled ones', async () => {
    let now = 0;
    const limiter = new MemoryWriteLimiter(() => now);
    const slow = { perSecond: 0.001, burst: 1 };
    const fast = { perSecond: 1000, burst: 1 };
    expect((await limiter.take('spent', slow)).allowed).toBe(true);
    for (let i = 0; i < 20_000; i++) await limiter.take(`other-${i}`, fast);
    now += 10;
    for (let i = 0; i < 20_000; i++) await limiter.take(`more-${i}`, fast);
    expect((await limiter.take('spent', slow)).allowed).toBe(false);
  });
});
