import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILES, REGENERATE_COMMAND, renderApiTypes } from './api-types.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** Where `committed` first differs from `expected`, as a line number and both lines, or null when they are equal. */
function firstDifference(committed: string, expected: string): string | null {
  if (committed === expected) return null;
  const had = committed.split('\n');
  const wants = expected.split('\n');
  const line = wants.findIndex((text, i) => had[i] !== text);
  const at = line === -1 ? wants.length : line;
  return `line ${at + 1}: has ${JSON.stringify(had[at] ?? '<end of file>')}, the server's document gives ${JSON.stringify(wants[at] ?? '<end of file>')}`;
}

describe("the clients' generated API types", () => {
  // Rendering imports the gateway's operations and runs the generator: seconds, more on a busy machine.
  it("match what the gateway's OpenAPI document generates now", { timeout: 120_000 }, async () => {
    const expected = await renderApiTypes();
    const stale: string[] = [];
    for (const file of API_TYPES_FILES) {
      const committed = await readFile(path.join(REPO_ROOT, file), 'utf8').catch(() => '');
      const difference = firstDifference(committed, expected);
      if (difference) stale.push(`${file} (${difference})`);
    }
    expect(stale, `Stale generated API types: run \`${REGENERATE_COMMAND}\` and commit the result.\n${stale.join('\n')}`).toEqual([]);
  });
});
