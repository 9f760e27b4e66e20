import { cpSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleCli } from '../../clients/cli/src/bundle.ts';

const CLI = path.resolve(import.meta.dirname, '../../clients/cli');

let built: Promise<string> | undefined;

/**
 * `lode` as its tarball installs it (one bundled module, clients/cli/src/bundle.ts), built once per
 * run: the path of its bin/lode.js. Timed commands run what users run, not the repository's
 * TypeScript sources, whose start resolves and strips each module.
 */
export function packedCli(): Promise<string> {
  built ??= mkdtemp(path.join(tmpdir(), 'lode-bench-cli-')).then(async (dir) => {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await bundleCli(path.join(dir, 'dist', 'main.js'));
    for (const part of ['bin', 'package.json']) cpSync(path.join(CLI, part), path.join(dir, part), { recursive: true });
    return path.join(dir, 'bin', 'lode.js');
  });
  return built;
}
