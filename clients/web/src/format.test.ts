import { describe, expect, it } from 'vitest';
import { folderPrefix, folderView } from './format.ts';

describe('the file browser by folder', () => {
  it('splits the paths under a folder, at any depth, into its subfolders and its own files', () => {
    const paths = ['Art/a.png', 'Art/Trees/oak.png', 'Art/Trees/pine.png', 'Art/Rocks/granite.png', 'Art/z.png'].map((path) => ({ path }));
    expect(folderView('Art/', paths)).toEqual({ folders: ['Art/Rocks/', 'Art/Trees/'], files: [{ path: 'Art/a.png' }, { path: 'Art/z.png' }] });
  });

  it('writes a typed folder path as the tree route\'s prefix', () => {
    expect(folderPrefix(' /Levels/Forest/ ')).toBe('Levels/Forest/');
    expect(folderPrefix('Levels')).toBe('Levels/');
    expect(folderPrefix('  /  ')).toBe('');
  });
});
