import { describe, expect, it } from 'vitest';
import { folderPrefix } from './format.ts';

describe('the file browser by folder', () => {
  it("writes a typed folder path as the tree route's prefix", () => {
    expect(folderPrefix(' /Levels/Forest/ ')).toBe('Levels/Forest/');
    expect(folderPrefix('Levels')).toBe('Levels/');
    expect(folderPrefix('  /  ')).toBe('');
  });
});
