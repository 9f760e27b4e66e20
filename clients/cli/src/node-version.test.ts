import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/lode.js');

/** `lode args…` on a Node that reports `version` (the running Node, its process.versions rewritten first). */
async function lodeOn(version: string, args: string[]) {
  const pretend = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(version)} } });`;
  const child = await run(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`, BIN, ...args]).then(
    (r) => ({ code: 0, ...r }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: child.code, stdout: child.stdout, stderr: child.stderr };
}

describe('the lode entry point on an older Node', () => {
  it('prints one line naming the Node it needs (the package’s engines field) and exits 1, before loading anything newer', async () => {
    const { engines } = JSON.parse(await readFile(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as { engines: { node: string } };
    expect(engines.node).toBe('>=22.12');
    const old = await lodeOn('20.20.2', ['status']);
    expect(old).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: lode needs Node.js 22.12 or newer; this is Node.js 20.20.2 (${process.execPath}). Install a newer Node.js (https://nodejs.org/) and run lode again.\n`,
    });
    const json = await lodeOn('22.11.9', ['status', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'unsupported_node', message: expect.stringContaining('this is Node.js 22.11.9'), required: '>=22.12', running: '22.11.9' },
    });
  });

  it('runs on the minimum and later', async () => {
    for (const version of ['22.12.0', '24.0.0']) expect(await lodeOn(version, ['--version'])).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});
