import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePath } from '@lode/contracts';
import { AppError } from '@lode/errors';
import { pathProblem } from '../src/paths.ts';

const serverTakes = (path: string) => !(normalizePath(path) instanceof AppError);

describe("the SDK's path rule", () => {
  it('takes and refuses the paths the server takes and refuses', () => {
    const cases = [
      'Levels/Forest.umap',
      'a',
      'é/cafe\u0301.png',
      '\u00a0x',
      'a/b\u0085',
      'a\u0080',
      'a\u009f',
      'a\u007f',
      'a\nb',
      'a\\b',
      '/a',
      'a//b',
      'a/./b',
      '../a',
      'a/',
      '',
      'x'.repeat(1024),
      'x'.repeat(1025),
      `${'é'.repeat(127)}x/y`,
      `${'é'.repeat(128)}/y`,
      'a\ud800b',
      'RÃ\u0089sumÃ©.txt',
    ];
    for (const path of cases) expect(pathProblem(path) === undefined, JSON.stringify(path)).toBe(serverTakes(path));
  });

  it('agrees with the server on any string', () => {
    const segment = fc.string({
      unit: fc.oneof(
        fc.constantFrom('a', 'é', '/', '.', '\\', '\u0085', '\u0000', '\u00a0', 'e\u0301'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
      maxLength: 40,
    });
    fc.assert(
      fc.property(segment, (path) => (pathProblem(path) === undefined) === serverTakes(path)),
      { numRuns: 5000 },
    );
  });
});
