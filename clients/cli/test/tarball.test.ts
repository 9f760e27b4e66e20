import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, expectOk, newWorkspace, writeText } from './workspace-fixtures.ts';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../..');
/** The machine's own Node 20, the oldest the packages promise to run on, when there is one. */
const NODE_20 = '/usr/bin/node';

/**
 * The SDK and the CLI as a user gets them: `npm pack` (which builds dist/ with tsc), unpacked into
 * a folder outside the repository. Their third-party dependencies are linked from the repository's
 * installed copies, since this machine cannot download (npm's offline cache lacks some of them).
 */
async function installFromTarballs(): Promise<string> {
  const packs = await emptyDir('lode-packs-');
  for (const pkg of ['sdk', 'cli']) await run('npm', ['pack', '--pack-destination', packs], { cwd: path.join(REPO, 'clients', pkg) });
  const target = await emptyDir('lode-installed-');
  const modules = path.join(target, 'node_modules');
  await mkdir(path.join(modules, '@lode'), { recursive: true });
  for (const [pkg, tarball] of [['sdk', 'lode-sdk-0.1.0.tgz'], ['cli', 'lode-cli-0.1.0.tgz']]) {
    const dir = path.join(modules, '@lode', pkg);
    await mkdir(dir);
    await run('tar', ['-xzf', path.join(packs, tarball), '-C', dir, '--strip-components=1']);
  }
  for (const source of [path.join(REPO, 'clients/cli/node_modules'), path.join(REPO, 'node_modules')]) {
    for (const name of await readdir(source)) {
      if (name.startsWith('.') || name === '@lode' || existsSync(path.join(modules, name))) continue;
      await symlink(path.join(source, name), path.join(modules, name));
    }
  }
  return path.join(modules, '@lode/cli/bin/lode.js');
}

describe('the CLI installed from its tarball', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local' });
  });
  afterAll(async () => stack?.stop());

  // Packing compiles both packages: minutes on a loaded machine, so it runs in the test, not a hook.
  it('holds built JavaScript only, runs --help, and logs in, pushes and pulls', async () => {
    const bin = await installFromTarballs();
    expect(existsSync(path.join(path.dirname(bin), '../src'))).toBe(false);
    expect(existsSync(path.join(path.dirname(bin), '../../sdk/dist/index.js'))).toBe(true);
    const node = existsSync(NODE_20) ? NODE_20 : process.execPath;
    const help = await run(node, [bin, '--help']);
    expect(help.stdout).toContain('Usage: lode');

    const project = await stack.seed.project();
    const user = await CliUser.create(stack.baseUrl, project);
    const env = { ...user.env, LODE_URL: '', LODE_KEY: '' };
    const dir = await emptyDir();
    await run(node, [bin, 'login', '--url', stack.baseUrl, '--key', project.key, '--device', project.deviceId], { cwd: dir, env });
    await run(node, [bin, 'init'], { cwd: dir, env });
    await writeText(dir, 'Levels/a.umap', 'from the tarball');
    const pushed = await run(node, [bin, 'push', '-m', 'first', '--json'], { cwd: dir, env });
    expect(JSON.parse(pushed.stdout)).toMatchObject({ commit: { sequenceNum: 1, fileCount: 1 } });
    const other = await newWorkspace(user);
    expect(expectOk(await user.run(other, ['pull', '--json'])).json).toMatchObject({ downloaded: 1 });
  }, 600_000);
});
