import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TtlCache } from './ttl-cache.ts';

describe('a TTL cache', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  /** A loader answering `key:n` on its nth call. */
  function counting() {
    let calls = 0;
    return async (key: string) => `${key}:${++calls}`;
  }

  it('serves a value, null included, until its time from the start of its read has passed', async () => {
    const cache = new TtlCache<string, string | null>({ ttlMs: 5000, maxEntries: 10 });
    expect(await cache.read('a', async () => null)).toBeNull();
    vi.setSystemTime(4999);
    expect(await cache.read('a', async () => 'late')).toBeNull();
    vi.setSystemTime(5000);
    expect(await cache.read('a', async () => 'fresh')).toBe('fresh');
  });

  it('reads a deleted key again, and keeps what is set', async () => {
    const cache = new TtlCache<string, string>({ ttlMs: 5000, maxEntries: 10 });
    const load = counting();
    expect(await cache.read('a', load)).toBe('a:1');
    cache.delete('a');
    expect(await cache.read('a', load)).toBe('a:2');
    cache.set('b', 'set');
    expect(await cache.read('b', load)).toBe('set');
  });

  it('empties itself when full rather than growing', async () => {
    const cache = new TtlCache<string, string>({ ttlMs: 5000, maxEntries: 2 });
    const load = counting();
    await cache.read('a', load);
    await cache.read('b', load);
    expect(await cache.read('c', load)).toBe('c:3');
    expect(await cache.read('a', load)).toBe('a:4');
    expect(await cache.read('c', load)).toBe('c:3');
  });
});
