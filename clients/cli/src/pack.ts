// Not part of the CLI (its bundle holds what src/main.ts imports): makes the two tarballs users
// install, `npm run tarballs -w @lode/cli -- DIR` → DIR/lode-sdk-<v>.tgz and DIR/lode-cli-<v>.tgz.
//
// Each package is built and packed in a folder of its own, with a package.json made for users: the
// repository's point its `types` and `development` entries at sources, which a tarball leaves out
// (a Vite app would follow `development` to a missing file), and they name no scripts to run again.
// The CLI's tarball carries one bundled module, the SDK and its third-party dependencies inside
// it: Node loads one file at every start instead of linking some ninety, and installing it asks
// the registry for nothing (not for @lode/sdk, which is not published there and which a stranger
// could publish, nor for anything else).
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleCli, thirdPartyNotices } from './bundle.ts';

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

/** The bundled packages' licences, beside the bundle. */
const NOTICES = 'THIRD-PARTY-NOTICES';

/** Builds `source` with its tsconfig.build.json into `stage`, then packs it (packStage). */
async function pack(source: string, stage: string, manifest: Manifest, dest: string): Promise<string> {
  await run(process.execPath, [tsc, '-p', path.join(source, 'tsconfig.build.json'), '--outDir', path.join(stage, 'dist')]);
  return packStage(stage, manifest, dest);
}

/** Writes `manifest` into `stage` and packs the folder into `dest`; answers the tarball's path. */
async function packStage(stage: string, manifest: Manifest, dest: string): Promise<string> {
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
  const packages = await bundleCli(path.join(cliStage, 'dist', 'main.js'));
  await writeFile(path.join(cliStage, NOTICES), await thirdPartyNotices(packages));
  await cp(path.join(CLI, 'bin'), path.join(cliStage, 'bin'), { recursive: true });
  await cp(path.join(CLI, 'README.md'), path.join(cliStage, 'README.md'));
  const cli = await readManifest(CLI);
  const cliTarball = await packStage(cliStage, published(cli, { dependencies: {}, files: [...(cli.files as string[]), NOTICES] }), dest);
  process.stdout.write(`${sdkTarball}\n${cliTarball}\n`);
} finally {
  await rm(stage, { recursive: true, force: true });
}
