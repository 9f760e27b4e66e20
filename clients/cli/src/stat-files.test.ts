import { statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statFiles } from './stat-files.ts';

/** `count` files, each after `missing` paths of files that do not exist: enough stat calls that the worker takes its share. */
async function pathsIn(count: number, missing: number): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lode-stat-'));
  const files = Array.from({ length: count }, (_, i) => path.join(dir, `f${i}`));
  await Promise.all(files.map((p, i) => writeFile(p, 'x'.repeat(i % 97))));
  return files.flatMap((file, i) => [...Array.from({ length: missing }, (_, j) => path.join(dir, `gone-${i}-${j}`)), file]);
}

describe('statFiles', () => {
  it('answers what statSync does for every path, shared with a worker or not', async () => {
    const paths = await pathsIn(2000, 30);
    for (const sharedFrom of [1, Number.POSITIVE_INFINITY]) {
      const stats = await statFiles(paths, sharedFrom);
      for (const [i, p] of paths.entries()) {
        const info = statSync(p, { throwIfNoEntry: false });
        expect([stats.size(i), stats.mtimeMs(i)]).toEqual(info ? [info.size, info.mtimeMs] : [-1, 0]);
      }
    }
  });

  it('throws a stat failure other than a missing file, whichever thread meets it', async () => {
    const paths = await pathsIn(10, 10_000);
    // A name longer than a file system takes: ENAMETOOLONG, not a missing file.
    for (const at of [0, paths.length / 2, paths.length - 1]) {
      const broken = paths.with(at, `${paths[at]}${'x'.repeat(300)}`);
      await expect(statFiles(broken, 1)).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
    }
  });
});
