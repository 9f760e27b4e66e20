import { execFile } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
// The bench runs on plain Node, where @lode/sdk resolves to its build: take the sources, as the CLI's bin does in the repo.
import type { LocalFile } from '../../../clients/sdk/src/index.ts';
import { timed } from '../load.ts';
import { packedCli } from '../packed-cli.ts';
import { sizeFromEnv } from '../profile.ts';
import { bareGets, barePuts, BARE_IN_FLIGHT, benchProject, transferResult, writeBenchFiles } from './bare-transfers.ts';
import type { BenchContext, Scenario, ScenarioResult } from './scenario.ts';

const run = promisify(execFile);
const KiB = 1024;
const MiB = 1024 * KiB;

interface Shape {
  files: number;
  fileBytes: number;
  /** One more file of this size beside the small ones; 0 for none. */
  bigBytes: number;
}

/**
 * The comparison teams ask about: 2,000 files of 64 KiB and one of 200 MiB in one repository, the
 * CLI scenario's git-lfs shape (--quick: 50 files and 5 MiB, a smoke run). LODE_BENCH_GIT_LFS_FILES,
 * LODE_BENCH_GIT_LFS_FILE_KIB and LODE_BENCH_GIT_LFS_BIG_MIB set another size in either profile.
 */
function shapeFor(quick: boolean): Shape {
  const base: Shape = quick ? { files: 50, fileBytes: 64 * KiB, bigBytes: 5 * MiB } : { files: 2000, fileBytes: 64 * KiB, bigBytes: 200 * MiB };
  return {
    files: sizeFromEnv('LODE_BENCH_GIT_LFS_FILES', 1, base.files),
    fileBytes: sizeFromEnv('LODE_BENCH_GIT_LFS_FILE_KIB', KiB, base.fileBytes),
    bigBytes: sizeFromEnv('LODE_BENCH_GIT_LFS_BIG_MIB', MiB, base.bigBytes),
  };
}

function labelOf(shape: Shape): string {
  const size = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB}MiB` : bytes % KiB === 0 ? `${bytes / KiB}KiB` : `${bytes}B`);
  return `${shape.files}x${size(shape.fileBytes)}${shape.bigBytes > 0 ? `+${size(shape.bigBytes)}` : ''}`;
}

/**
 * git as a team member runs it, but reading nothing of this machine's or user's git configuration
 * (a HOME of its own, no system config), and never prompting: a missing credential fails.
 */
function gitRunner(home: string) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    LANG: 'C',
    LC_ALL: 'C',
  };
  return (cwd: string, args: string[], extra: Record<string, string> = {}) => run('git', args, { cwd, env: { ...env, ...extra }, maxBuffer: 64 * MiB });
}
type Git = ReturnType<typeof gitRunner>;

/**
 * What a team sets in a working copy to use Lode: git-lfs's hooks and filters, `lfs.url` at the
 * project, lock verification on, and the credential store holding the device id as the user name
 * and the project key as the password.
 */
async function pointAtLode(git: Git, work: string, lfsUrl: string, credentials: string): Promise<void> {
  await git(work, ['lfs', 'install', '--local']);
  await git(work, ['config', 'user.name', 'Lode Bench']);
  await git(work, ['config', 'user.email', 'bench@lode.invalid']);
  await git(work, ['config', 'lfs.url', lfsUrl]);
  await git(work, ['config', `lfs.${lfsUrl}.locksverify`, 'true']);
  await git(work, ['config', 'credential.helper', `store --file=${credentials}`]);
}

/** Every file pulled whole: a file left as a pointer (some 130 bytes) would pass for a fast pull. */
async function expectPulled(root: string, files: LocalFile[], what: string): Promise<void> {
  for (const f of files) {
    const size = (await stat(path.join(root, f.path))).size;
    if (size !== f.digest.size) throw new Error(`${what}: ${f.path} has ${size} bytes, not ${f.digest.size}`);
  }
}

/** One round against bare storage's, and what it is beside. */
function result(ctx: BenchContext, name: string, ms: number, rawMs: number, bytes: number, files: number, beside: string): ScenarioResult {
  const measured = transferResult(ctx, name, ms, rawMs, bytes, files);
  return { ...measured, note: `${measured.note}; ${beside}` };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * The stock git-lfs client against Lode's Git LFS server, beside `lode push` and `lode pull` of the
 * same files in the same run, each as a ratio to bare storage moving them (presigned PUTs and GETs
 * with no Lode call): `git push` of a commit of the files to a local bare repository with `lfs.url`
 * at the project (git-lfs's pre-push hook: lock verification, upload batches, PUTs, a verify each),
 * and `git lfs pull` in a fresh clone made with GIT_LFS_SKIP_SMUDGE=1 (download batches, GETs, the
 * checkout). git-lfs hashes at `git add` (its clean filter), so its push's time holds no hashing
 * while `lode push`'s does; the add is timed apart and printed. Figures only, no targets: the
 * comparison informs and gates nothing.
 */
export const gitLfs: Scenario = {
  name: 'git-lfs',
  async run(ctx) {
    const shape = shapeFor(ctx.profile.name === 'quick');
    const label = labelOf(shape);
    const dir = await mkdtemp(path.join(tmpdir(), 'lode-bench-git-lfs-'));
    try {
      const home = path.join(dir, 'home');
      await mkdir(home);
      const git = gitRunner(home);
      const version = (
        await git(dir, ['lfs', 'version']).catch((error: Error) => {
          throw new Error(`git-lfs is needed for this scenario (the git-lfs package): ${error.message}`);
        })
      ).stdout.trim();

      const work = path.join(dir, 'work');
      ctx.log(`git-lfs ${label}: writing the files`);
      const files = await writeBenchFiles(work, shape.files, shape.fileBytes, shape.bigBytes);
      const total = files.reduce((bytes, f) => bytes + f.digest.size, 0);
      const count = files.length;

      ctx.log(`git-lfs ${label}: bare PUTs`);
      const rawPutMs = await barePuts((await benchProject(ctx)).api, files);

      const { seeded: lfsProject } = await benchProject(ctx);
      const lfsUrl = `${ctx.deployment.baseUrl}/lfs/${lfsProject.projectId}`;
      const credentials = path.join(dir, 'git-credentials');
      const host = new URL(lfsUrl);
      await writeFile(credentials, `${host.protocol}//${encodeURIComponent(lfsProject.deviceId)}:${encodeURIComponent(lfsProject.key)}@${host.host}\n`, {
        mode: 0o600,
      });
      const origin = path.join(dir, 'origin.git');
      await mkdir(origin);
      await git(origin, ['init', '--bare', '-q', '-b', 'main']);
      await git(work, ['init', '-q', '-b', 'main']);
      await git(work, ['remote', 'add', 'origin', origin]);
      await pointAtLode(git, work, lfsUrl, credentials);
      await git(work, ['lfs', 'track', '*.bin']);
      ctx.log(`git-lfs ${label}: git add (git-lfs hashes here, untimed in the push)`);
      const addMs = await timed(() => git(work, ['add', '-A']));
      await git(work, ['commit', '-q', '-m', 'bench']);
      ctx.log(`git-lfs ${label}: git push`);
      const gitPushMs = await timed(() => git(work, ['push', '-q', '-u', 'origin', 'main']));

      // lode push of the same files from a workspace of their own (hard links: no copy of the bytes),
      // so that git's .gitattributes is no file of the Lode project.
      const { seeded: lodeProject, api: lodeApi } = await benchProject(ctx);
      const lodeEnv = {
        ...process.env,
        LODE_URL: ctx.deployment.baseUrl,
        LODE_KEY: lodeProject.key,
        LODE_DEVICE: lodeProject.deviceId,
        XDG_CONFIG_HOME: path.join(dir, 'lode-config'),
      };
      const bin = await packedCli();
      const lode = (cwd: string, ...args: string[]) => run(process.execPath, [bin, ...args, '--json'], { cwd, env: lodeEnv, maxBuffer: 64 * MiB });
      const workspace = path.join(dir, 'lode-push');
      await mkdir(path.join(workspace, 'data'), { recursive: true });
      for (const f of files) await link(f.localPath, path.join(workspace, f.path));
      await lode(workspace, 'init');
      ctx.log(`git-lfs ${label}: lode push`);
      const lodePushMs = await timed(() => lode(workspace, 'push', '-m', 'bench'));

      ctx.log(`git-lfs ${label}: bare GETs`);
      const raw = path.join(dir, 'raw');
      await mkdir(raw);
      const rawGetMs = await bareGets(lodeApi, files, raw);
      await rm(raw, { recursive: true });

      const clone = path.join(dir, 'clone');
      await git(dir, ['clone', '-q', origin, clone], { GIT_LFS_SKIP_SMUDGE: '1' });
      await pointAtLode(git, clone, lfsUrl, credentials);
      ctx.log(`git-lfs ${label}: git lfs pull`);
      const gitPullMs = await timed(() => git(clone, ['lfs', 'pull']));
      await expectPulled(clone, files, 'git lfs pull');

      const pulled = path.join(dir, 'lode-pull');
      await mkdir(pulled);
      await lode(pulled, 'init');
      ctx.log(`git-lfs ${label}: lode pull`);
      const lodePullMs = await timed(() => lode(pulled, 'pull'));
      await expectPulled(pulled, files, 'lode pull');

      const times = (ms: number, other: number, what: string) => `${(ms / other).toFixed(2)}× ${what}’s time`;
      const gitPush = result(
        ctx,
        `git-lfs-push-${label}`,
        gitPushMs,
        rawPutMs,
        total,
        count,
        `${times(gitPushMs, lodePushMs, 'lode push')}; git add ${seconds(addMs)} more, untimed`,
      );
      gitPush.details = [
        `git-lfs ${label} (${version}, its defaults: 8 transfers at a time, batches of 100; bare storage ${BARE_IN_FLIGHT} at a time):`,
        `  git-lfs-push: \`git push\` to a local bare repository with lfs.url = <lode>/lfs/<projectId>, credentials from git's store (device id, key):`,
        `    lock verification, upload batches, presigned PUTs and a verify per object, then git's own push of the pointers.`,
        `    git-lfs hashes every file at \`git add\` (its clean filter), which is outside this time (${seconds(addMs)} here);`,
        `    lode-push hashes as it pushes, inside its time (sync, initiate-batch, PUTs, confirm-batch, commit).`,
        `  git-lfs-pull: \`git lfs pull\` in a fresh clone made with GIT_LFS_SKIP_SMUDGE=1: download batches, GETs, checkout of every file;`,
        `    lode-pull: \`lode pull\` in a fresh workspace (sync, download URLs, GETs checked by SHA-256).`,
      ];
      return [
        gitPush,
        result(ctx, `lode-push-${label}`, lodePushMs, rawPutMs, total, count, `git-lfs push ${seconds(gitPushMs)}`),
        result(ctx, `git-lfs-pull-${label}`, gitPullMs, rawGetMs, total, count, times(gitPullMs, lodePullMs, 'lode pull')),
        result(ctx, `lode-pull-${label}`, lodePullMs, rawGetMs, total, count, `git lfs pull ${seconds(gitPullMs)}`),
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
