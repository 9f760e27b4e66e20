import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonFile, removeFile, writeJsonFile } from './json-file.ts';

const tempDir = () => mkdtemp(path.join(tmpdir(), 'lode-json-file-'));

describe('writeJsonFile', () => {
  it('lets many saves of one file run at once: each succeeds, the last value wins, no temporary file is left', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'nested', 'journal.json');
    const values = Array.from({ length: 50 }, (_, i) => ({ save: i, padding: 'x'.repeat(10_000 * (i % 3)) }));
    await Promise.all(values.map((value) => writeJsonFile(file, value)));
    expect(await readJsonFile(file, null)).toEqual(values.at(-1));
    expect(await readdir(path.dirname(file))).toEqual(['journal.json']);
  });

  it('saves the value as it was when asked, even if it changes while an earlier save runs', async () => {
    const file = path.join(await tempDir(), 'state.json');
    const state = { files: ['a'] };
    const first = writeJsonFile(file, { big: 'y'.repeat(1_000_000) });
    const second = writeJsonFile(file, state);
    state.files.push('b');
    await Promise.all([first, second]);
    expect(await readJsonFile(file, null)).toEqual({ files: ['a'] });
  });

  it('removes the file after the saves asked for before, which would otherwise bring it back', async () => {
    const file = path.join(await tempDir(), 'journal.json');
    const saves = [writeJsonFile(file, { a: 1 }), writeJsonFile(file, { a: 2 })];
    await Promise.all([...saves, removeFile(file)]);
    expect(await readJsonFile(file, 'gone')).toBe('gone');
  });

  it('creates the file with the mode asked for, pretty-printed when asked', async () => {
    const file = path.join(await tempDir(), 'config.json');
    await writeJsonFile(file, { key: 'lode_x' }, { mode: 0o600, indent: 2 });
    expect(await readFile(file, 'utf8')).toBe('{\n  "key": "lode_x"\n}\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
