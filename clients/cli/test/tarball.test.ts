import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { CliUser } from './cli-runner.ts';
import { emptyDir, RUN_MODES, writeText } from './workspace-fixtures.ts';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../..');
/** Third-party dependencies come from npm's cache when it has them (CI's `npm ci` filled it), else from the registry. */
const INSTALL = ['--prefer-offline', '--no-audit', '--no-fund'];

/**
 * The README's install, as a user runs it: the tarballs made by `npm run tarballs`, then a real
 * `npm install --global` of the CLI's (into a folder of its own, with `--prefix`).
 */
let packing: Promise<string> | undefined;
function tarballs(): Promise<string> {
  packing ??= emptyDir('lode-packs-').then(async (packs) => {
    await run('npm', ['run', 'tarballs', '-w', '@lode/cli', '--', packs], { cwd: REPO });
    return packs;
  });
  return packing;
}

const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

/** The CLI installed by a real `npm install --global` of its tarball, into a folder of its own; once for every mode. */
let installing: Promise<string> | undefined;
function installedCli(): Promise<string> {
  installing ??= Promise.all([tarballs(), emptyDir('lode-installed-')]).then(async ([packs, prefix]) => {
    await run('npm', ['install', '--global', '--prefix', prefix, ...INSTALL, path.join(packs, 'lode-cli-0.1.0.tgz')], { cwd: prefix });
    return prefix;
  });
  return installing;
}

describe.each(RUN_MODES)('the CLI installed from its tarball (%s)', (_mode, options) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(options);
  });
  afterAll(async () => stack?.stop());

  // Packing compiles both packages: minutes on a loaded machine, so it runs in the tests, not a hook.
  it('is one module with the SDK and its dependencies inside (nothing looked up), runs --help, logs in, pushes and pulls', async () => {
    const prefix = await installedCli();
    const installed = path.join(prefix, 'lib/node_modules/@lode/cli');
    expect(existsSync(path.join(installed, 'src'))).toBe(false);
    // npm had nothing to look up: not @lode/sdk (the registry has none, or a stranger's), nor anything else.
    const manifest = await readJson(path.join(installed, 'package.json'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(existsSync(path.join(installed, 'node_modules'))).toBe(false);
    expect(await readdir(path.join(installed, 'dist'))).toEqual(['main.js']);
    // The bundled packages' licences travel with them.
    const notices = await readFile(path.join(installed, 'THIRD-PARTY-NOTICES'), 'utf8');
    for (const dependency of Object.keys((await readJson(path.join(REPO, 'clients/cli/package.json'))).dependencies).filter((name) => name !== '@lode/sdk'))
      expect(notices).toContain(`${dependency}@`);
    // The Node it needs, where npm's engine warning reads it and where lode's own check does.
    expect(manifest.engines).toEqual({ node: '>=22.12' });

    // The `lode` that npm linked, run by its own `#!/usr/bin/env node` with this test's Node first on PATH.
    const project = await stack.seed.project();
    const user = await CliUser.create(stack.baseUrl, project);
    const env = { ...user.env, LODE_URL: '', LODE_KEY: '', PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
    const lode = path.join(prefix, 'bin/lode');
    expect((await run(lode, ['--help'], { env })).stdout).toContain('Usage: lode');
    const dir = await emptyDir();
    await run(lode, ['login', '--url', stack.baseUrl, '--key', project.key, '--device', project.deviceId], { cwd: dir, env });
    await run(lode, ['init'], { cwd: dir, env });
    await writeText(dir, 'Levels/a.umap', 'from the tarball');
    const pushed = await run(lode, ['push', '-m', 'first', '--json'], { cwd: dir, env });
    expect(JSON.parse(pushed.stdout)).toMatchObject({ commit: { sequenceNum: 1, fileCount: 1 } });
    const other = await emptyDir();
    await run(lode, ['init'], { cwd: other, env });
    expect(JSON.parse((await run(lode, ['pull', '--json'], { cwd: other, env })).stdout)).toMatchObject({ downloaded: 1 });
    expect(await readFile(path.join(other, 'Levels/a.umap'), 'utf8')).toBe('from the tarball');
  }, 600_000);
});

describe('the SDK installed from its tarball', () => {
  it('ships the SDK with type declarations that a TypeScript project and the README’s examples compile against', async () => {
    const packs = await tarballs();
    const project = await emptyDir('lode-sdk-user-');
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    await run('npm', ['install', ...INSTALL, path.join(packs, 'lode-sdk-0.1.0.tgz')], { cwd: project });
    const manifest = await readJson(path.join(project, 'node_modules/@lode/sdk/package.json'));
    expect(JSON.stringify(manifest.exports)).not.toContain('src/');
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(REPO, 'node_modules/@types')] },
        files: ['index.ts', 'readme.ts'],
      }),
    );
    // The README's examples, in order, as one program: they must compile against what the tarball ships.
    const readme = await readFile(path.join(REPO, 'clients/sdk/README.md'), 'utf8');
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(examples.length).toBeGreaterThanOrEqual(3);
    await writeFile(path.join(project, 'readme.ts'), examples.join('\n'));
    await writeFile(
      path.join(project, 'index.ts'),
      [
        "import { LodeClient, type PluginVersion } from '@lode/sdk';",
        "const versions = await new LodeClient({ url: 'https://lode.example.com', key: 'lode_x' }).listPluginVersions('tools');",
        'const latest: PluginVersion | undefined = versions.data[0];',
        '// @ts-expect-error: a size is a number, which the declarations know',
        'export const size: string | undefined = latest?.size;',
      ].join('\n'),
    );
    await run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', project]);
  }, 600_000);
});
