// Not part of the CLI (the build leaves it out): makes the two tarballs users install,
// `npm run tarballs -w @lode/cli -- DIR` → DIR/lode-sdk-<v>.tgz and DIR/lode-cli-<v>.tgz.
//
// Each package is built and packed in a folder of its own, with a package.json made for users: the
// repository's point its `types` and `development` entries at sources, which a tarball leaves out
// (a Vite app would follow `development` to a missing file), and they name no scripts to run again.
// The CLI's tarball carries the SDK's inside it (bundleDependencies): installing it asks the
// registry for its third-party dependencies only, never for @lode/sdk, which is not published
// there, and which a stranger could publish.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '..');
const SDK = path.resolve(CLI, '../sdk');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

const readManifest = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Manifest;

/** A package.json for users: no scripts and no development dependencies. */
function published(manifest: Manifest, changes: Partial<Manifest>): Manifest {
  const { scripts: _scripts, devDependencies: _devDependencies, ...kept } = manifest;
  return { ...kept, ...changes };
}

/** Builds `source` with its tsconfig.build.json into `stage`, writes `manifest` there and packs it into `dest`; answers the tarball's path. */
async function pack(source: string, stage: string, manifest: Manifest, dest: string): Promise<string> {
  await run(process.execPath, [tsc, '-p', path.join(source, 'tsconfig.build.json'), '--outDir', path.join(stage, 'dist')]);
  await writeFile(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dest], { cwd: stage });
  const [{ filename }] = JSON.parse(stdout) as { filename: string }[];
  return path.join(dest, filename);
}

const dest = path.resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? '.');
await mkdir(dest, { recursive: true });
const stage = await mkdtemp(path.join(tmpdir(), 'lode-pack-'));
try {
  const sdk = await readManifest(SDK);
  const sdkTarball = await pack(
    SDK,
    path.join(stage, 'sdk'),
    published(sdk, { exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } }),
    dest,
  );

  const cliStage = path.join(stage, 'cli');
  const bundled = path.join(cliStage, 'node_modules', sdk.name);
  await mkdir(bundled, { recursive: true });
  await run('tar', ['-xzf', sdkTarball, '-C', bundled, '--strip-components=1']);
  await cp(path.join(CLI, 'bin'), path.join(cliStage, 'bin'), { recursive: true });
  await cp(path.join(CLI, 'README.md'), path.join(cliStage, 'README.md'));
  const cli = await readManifest(CLI);
  const cliTarball = await pack(
    CLI,
    cliStage,
    published(cli, { dependencies: { ...cli.dependencies, [sdk.name]: sdk.version }, bundleDependencies: [sdk.name] }),
    dest,
  );
  process.stdout.write(`${sdkTarball}\n${cliTarball}\n`);
} finally {
  await rm(stage, { recursive: true, force: true });
}
