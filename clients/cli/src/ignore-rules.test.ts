import fc from 'fast-check';
import ignore from 'ignore';
import { describe, expect, it } from 'vitest';
import { ignoreTest } from './ignore-rules.ts';

/** Pattern characters: the wildcards, classes, escapes, anchors, negations and comments of gitignore, and a few letters in both cases. */
const patternChar = fc.constantFrom('a', 'b', 'A', 'B', 'ß', '.', '/', '*', '**', '?', '[a]', '\\', '!', '#', ' ', 'x.tmp');
/** Names a project may hold: letters of both cases, dots, spaces and pattern characters. */
const nameChar = fc.constantFrom('a', 'b', 'A', 'B', 'SS', '.', ' ', '!', '#', '*', 'x', '.tmp');
const name = fc
  .array(nameChar, { minLength: 1, maxLength: 4 })
  .map((chars) => chars.join(''))
  // The library refuses "." and ".." (relative paths), as the project does.
  .filter((n) => !/^\.+$/.test(n));
const projectPath = fc.tuple(fc.array(name, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([names, folder]) => `${names.join('/')}${folder ? '/' : ''}`);

describe('ignore rules asked only about paths a rule could ignore', () => {
  it('decides every path as the ignore library does', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(patternChar, { maxLength: 5 }).map((chars) => chars.join('')),
          { maxLength: 4 },
        ),
        projectPath,
        (lines, p) => {
          expect(ignoreTest(lines)(p)).toBe(ignore().add(lines).ignores(p));
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 2000), seed: Number(process.env.FC_SEED ?? 20_261_129) },
    );
  });

  it('keeps a path holding no rule’s text, ignores one a rule matches, whatever the case', () => {
    const ignores = ignoreTest(['.git/', '*.TMP', '/Build/', '!keep.tmp']);
    expect(ignores('Levels/Forest.umap')).toBe(false);
    expect(ignores('Levels/cache.tmp')).toBe(true);
    expect(ignores('Levels/keep.tmp')).toBe(false);
    expect(ignores('build/')).toBe(true);
    expect(ignores('Plugins/.GIT/')).toBe(true);
  });
});
