import { describe, expect, it } from 'vitest';
import { caseCollisions, inScope } from './status.ts';

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

describe('names that differ only in letter case', () => {
  it('groups the paths the project takes for one file, and nothing else', () => {
    expect(caseCollisions(['Levels/a.umap', 'Case.txt', 'case.txt', 'CASE.TXT', 'Levels/A.umap', 'other.txt'])).toEqual([
      ['CASE.TXT', 'Case.txt', 'case.txt'],
      ['Levels/A.umap', 'Levels/a.umap'],
    ]);
    expect(caseCollisions(['a/b.png', 'a/c.png', 'b/b.png'])).toEqual([]);
  });

  it('compares folders too: one folder to the project whatever its case', () => {
    expect(caseCollisions(['Textures/wood.png', 'textures/wood.png'])).toEqual([['Textures/wood.png', 'textures/wood.png']]);
  });
});
