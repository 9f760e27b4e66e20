import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PathCache } from './path-cache.ts';

describe('the lock service’s cache of file paths', () => {
  it('answers a path per project only: the same file id in another project is unknown', () => {
    const cache = new PathCache();
    const [project, other, file] = [randomUUID(), randomUUID(), randomUUID()];
    cache.set(project, file, 'levels/a.umap');
    expect(cache.get(project, file)).toBe('levels/a.umap');
    expect(cache.get(other, file)).toBeUndefined();
  });

  it('drops the oldest entries beyond its size', () => {
    const cache = new PathCache(2);
    const project = randomUUID();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    cache.set(project, a, 'a');
    cache.set(project, b, 'b');
    cache.set(project, c, 'c');
    expect([cache.get(project, a), cache.get(project, b), cache.get(project, c)]).toEqual([undefined, 'b', 'c']);
  });
});
