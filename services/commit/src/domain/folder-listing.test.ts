import { describe, expect, it } from 'vitest';
import { listedFolder } from './folder-listing.ts';

describe('listedFolder', () => {
  it('names the root by no row, and any other folder by its parent and its own segment', () => {
    expect(listedFolder('')).toEqual({ folder: '', row: null });
    expect(listedFolder('Content/')).toEqual({ folder: 'Content/', row: { parent: '', name: 'Content' } });
    expect(listedFolder('Content/Maps/Désert/')).toEqual({ folder: 'Content/Maps/Désert/', row: { parent: 'Content/Maps/', name: 'Désert' } });
  });
});
