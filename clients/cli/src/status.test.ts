import { describe, expect, it } from 'vitest';
import { inScope } from './status.ts';

describe('push and pull scopes', () => {
  it('takes everything without scopes, and a path under a folder or equal to a file', () => {
    expect(inScope('Levels/Forest.umap', [])).toBe(true);
    expect(inScope('Levels/Forest.umap', ['Levels'])).toBe(true);
    expect(inScope('Levels/Forest.umap', ['Levels/'])).toBe(true);
    expect(inScope('Levels/Forest.umap', ['Levels/Forest.umap'])).toBe(true);
    expect(inScope('Levels/Forest.umap', [''])).toBe(true);
  });

  it('does not take a sibling whose name merely starts the same', () => {
    expect(inScope('LevelsOld/a.umap', ['Levels'])).toBe(false);
    expect(inScope('Levels/Forest.umap.bak', ['Levels/Forest.umap'])).toBe(false);
    expect(inScope('Textures/a.png', ['Levels', 'Audio'])).toBe(false);
  });
});
