import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { STATE_DIR } from './workspace.ts';

/** Whether the rules leave a project path alone; a folder's path ends in `/`. */
export type IgnoreTest = (projectPath: string) => boolean;

/**
 * Other version-control systems' state inside a workspace (a game checked out of git or Perforce and
 * shared through Lode too): their own business, never the project's, so left out unless `.lodeignore`
 * takes one back with a `!` rule.
 */
const DEFAULT_IGNORES = ['.git/', '.svn/', '.hg/', '.p4*'];

/** The workspace's own state and the downloads' temporary files, which no rule can take back. */
const OWN_FILES = [`${STATE_DIR}/`, '*.lode-tmp', '*.lode-partial', '*.lode-ranges'];

/**
 * The defaults, then `.lodeignore` at the workspace root in gitignore syntax (a later rule wins, so
 * it can re-include a default), then the workspace's own files: one rule per line, for ignoreTest.
 */
export async function workspaceIgnoreRules(root: string): Promise<string[]> {
  let lodeignore = '';
  try {
    lodeignore = await readFile(path.join(root, '.lodeignore'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Split as the ignore library splits a file, so that each line is one rule to both.
  return [...DEFAULT_IGNORES, ...lodeignore.split(/\r?\n/), ...OWN_FILES];
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * The rules of `lines` (gitignore syntax), as the ignore library applies them, asked only about the
 * paths a rule could ignore: a path that holds none of the rules' literal texts matches no rule
 * that ignores, nor does any folder above it (a prefix of it), so it is kept without the library's
 * test of every rule. Most paths of a workspace hold none, and the library's test of a path costs
 * more than looking for a few short texts in it.
 */
export function ignoreTest(lines: readonly string[]): IgnoreTest {
  const rules = ignore().add([...lines]);
  // A negation takes paths back, and a blank line or a comment is no rule: neither ignores anything.
  const ignoring = lines.filter((line) => line.trim() !== '' && !line.startsWith('#') && !line.startsWith('!'));
  const texts = [...new Set(ignoring.map(literalText))];
  // A rule without a literal text (`*`, a character class, an escape) may ignore any path.
  if (texts.includes('')) return (projectPath) => rules.ignores(projectPath);
  // A path in ASCII holds an (upper-cased) text of ASCII when it holds it ignoring ASCII case, and
  // none of another: one regular expression then asks, with no upper-cased copy of the path.
  const asciiTexts = texts.filter((text) => !NON_ASCII.test(text));
  const inAscii = asciiTexts.length === 0 ? undefined : new RegExp(asciiTexts.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');
  const holdsText = (projectPath: string): boolean => {
    if (!NON_ASCII.test(projectPath)) return inAscii?.test(projectPath) ?? false;
    const key = projectPath.toUpperCase();
    return texts.some((text) => key.includes(text));
  };
  return (projectPath) => holdsText(projectPath) && rules.ignores(projectPath);
}

/**
 * A text that every path a pattern matches holds, upper-cased as the rules ignore case: its longest
 * run without wildcards, slashes at its ends and spaces at its ends dropped (`**` matches no folder,
 * a leading `/` anchors, trailing spaces are trimmed). '' where it has a character class or an
 * escape, whose literal text this does not work out.
 */
function literalText(line: string): string {
  if (/[[\]\\]/.test(line)) return '';
  const runs = line.split(/[*?]/).map((run) => run.replace(/^[/\s]+|[/\s]+$/g, ''));
  return runs.reduce((longest, run) => (run.length > longest.length ? run : longest), '').toUpperCase();
}
