import { describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { normalizePath } from './paths.ts';

describe('normalizePath', () => {
  it('keeps a clean relative path and folds case into the key', () => {
    expect(normalizePath('Levels/Forest/Map.umap')).toEqual({ path: 'Levels/Forest/Map.umap', key: 'levels/forest/map.umap' });
  });

  it('keeps the letters right after the C1 control block', () => {
    expect(normalizePath('textures/\u00a0\u00e9.png')).toMatchObject({ path: 'textures/\u00a0\u00e9.png' });
  });

  it('normalizes to NFC so composed and decomposed forms are one file', () => {
    const decomposed = 'textures/cafe\u0301.png';
    const result = normalizePath(decomposed);
    expect(result).toEqual({ path: 'textures/caf\u00e9.png', key: 'textures/caf\u00e9.png' });
  });

  it.each([
    ['', 'empty'],
    ['/etc/passwd', 'absolute'],
    ['a/../b', 'dot-dot'],
    ['./a', 'dot'],
    ['a\\b', 'backslash'],
    ['a//b', 'empty segment'],
    ['a/', 'trailing slash'],
    ['a\u0000b', 'control character'],
    ['a\nb', 'newline'],
    ['a\u007f', 'DEL'],
    ['a/b\u0080', 'C1 control character (first)'],
    ['p/a\u0085', 'C1 control character (NEL, a line break to some tools)'],
    ['a\u009fb', 'C1 control character (last)'],
    ['x'.repeat(1025), 'too long'],
    [`${'y'.repeat(256)}/z`, 'segment too long'],
  ])('rejects %j (%s)', (raw) => {
    const result = normalizePath(raw);
    expect(result).toBeInstanceOf(AppError);
    expect((result as AppError).code).toBe('validation_failed');
  });
});
