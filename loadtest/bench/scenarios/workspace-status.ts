import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { timed } from '../load.ts';
import { packedCli } from '../packed-cli.ts';
import { latencies } from '../stats.ts';
import { benchProject } from './bare-transfers.ts';
import { SYNC_BATCH } from './hops.ts';
import type { BenchContext, Scenario, ScenarioResult } from './scenario.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** Timed runs of each status, after an untimed one: the median is reported. */
const ROUNDS = 3;

interface Shape {
  files: number;
  folders: number;
  /** Files edited between the unchanged status and the next. */
  edits: number;
}

/** The workspace of a large game project: 100,000 small files in 1,000 folders (quick: a twentieth). */
const shapeFor = (quick: boolean): Shape => (quick ? { files: 5000, folders: 50, edits: 100 } : { files: 100_000, folders: 1000, edits: 100 });

const fileName = (shape: Shape, i: number) => `d${String(i % shape.folders).padStart(4, '0')}/f${String(i).padStart(6, '0')}.txt`;

/** About 80 bytes of text, different each call. */
const smallContent = () => `${randomBytes(30).toString('hex')}\n${randomBytes(9).toString('hex')}\n`;

/**
 * `lode status` with nothing changed and with a few files edited, and `lode push` of those edits,
 * on a workspace of many small files, each beside `git status` on the same tree in the same run
 * (a git repository of the same files, committed, `.lode` left out): git's status is the bar.
 */
export const workspaceStatus: Scenario = {
  name: 'workspace-status',
  async run(ctx) {
    const shape = shapeFor(ctx.profile.name === 'quick');
    const dir = await mkdtemp(path.join(tmpdir(), 'lode-bench-status-'));
    try {
      const workspace = path.join(dir, 'ws');
      ctx.log(`workspace-status: writing ${shape.files} files in ${shape.folders} folders`);
      for (let folder = 0; folder < shape.folders; folder++) await mkdir(path.join(workspace, `d${String(folder).padStart(4, '0')}`), { recursive: true });
      for (let i = 0; i < shape.files; i += 500) {
        const slice = Array.from({ length: Math.min(500, shape.files - i) }, (_, j) => i + j);
        await Promise.all(slice.map((n) => writeFile(path.join(workspace, fileName(shape, n)), smallContent())));
      }
      const git = (...args: string[]) => run('git', args, { cwd: workspace, maxBuffer: 256 * MiB });
      ctx.log('workspace-status: git init, add, commit');
      await git('init', '-q');
      await writeFile(path.join(workspace, '.git', 'info', 'exclude'), '.lode/\n');
      await git('add', '-A');
      await git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench');

      const { seeded } = await benchProject(ctx);
      const env = {
        ...process.env,
        LODE_URL: ctx.deployment.baseUrl,
        LODE_KEY: seeded.key,
        LODE_DEVICE: seeded.deviceId,
        XDG_CONFIG_HOME: path.join(dir, 'config'),
      };
      const bin = await packedCli();
      const lodeAs = (json: boolean, ...args: string[]) =>
        run(process.execPath, [bin, ...args, ...(json ? ['--json'] : [])], { cwd: workspace, env, maxBuffer: 256 * MiB });
      const lode = (...args: string[]) => lodeAs(true, ...args);
      // Timed as a user runs it: the summary, not a JSON document of every file.
      const status = () => lodeAs(false, 'status');
      await lode('init');
      ctx.log(`workspace-status: lode push of ${shape.files} files`);
      const firstPushMs = await timed(() => lode('push', '-m', 'bench'));
      // The first status after the push catches up with it; the record is then current.
      const firstStatusMs = await timed(status);

      const editAndCheck = async (offset: number) => {
        for (let i = 0; i < shape.edits; i++)
          await writeFile(path.join(workspace, fileName(shape, Math.floor((i * shape.files) / shape.edits) + offset)), smallContent());
        ctx.log(`workspace-status: ${shape.edits} files edited, lode and git status`);
        const { stdout } = await lode('status');
        const counts = (JSON.parse(stdout) as { counts: Record<string, number> }).counts;
        if (counts.modified !== shape.edits) throw new Error(`workspace-status: ${shape.edits} edits read as ${JSON.stringify(counts)}`);
      };
      /** Unchanged and edited status, then the push of the edits, each status beside git's taken right after it. */
      const rounds = async (offset: number) => {
        ctx.log('workspace-status: unchanged status, lode and git');
        const unchanged = await medianOf(ctx, status);
        const gitUnchanged = await medianOf(ctx, () => git('status', '--porcelain'));
        await editAndCheck(offset);
        const edited = await medianOf(ctx, status);
        const gitEdited = await medianOf(ctx, () => git('status', '--porcelain'));
        ctx.log(`workspace-status: lode push of ${shape.edits} edits`);
        const pushMs = await timed(() => lode('push', '-m', 'edits'));
        const afterPush = await timed(status);
        return { unchanged, gitUnchanged, edited, gitEdited, pushMs, afterPush };
      };

      const label = `${shape.files}x80B`;
      const versus = (name: string, ms: number, gitMs: number, extra = ''): ScenarioResult => ({
        name,
        p50Ms: ms,
        p99Ms: ms,
        opsPerSec: 1000 / ms,
        legs: ctx.legs(SYNC_BATCH),
        note: `${(ms / gitMs).toFixed(2)}× git status (${(gitMs / 1000).toFixed(2)} s)${extra}`,
        targets: [{ label: 'within git status', met: () => ms <= gitMs }],
      });
      const rows = (run: Awaited<ReturnType<typeof rounds>>, suffix: string, how: string): ScenarioResult[] => [
        versus(`status-unchanged-${label}${suffix}`, run.unchanged, run.gitUnchanged, `; medians of ${ROUNDS}${how}`),
        versus(`status-${shape.edits}-edits-${label}${suffix}`, run.edited, run.gitEdited, `; medians of ${ROUNDS}${how}`),
        {
          name: `push-${shape.edits}-edits-${label}${suffix}`,
          p50Ms: run.pushMs,
          p99Ms: run.pushMs,
          opsPerSec: 1000 / run.pushMs,
          legs: ctx.legs(SYNC_BATCH),
          note: `one round; the status after it ${(run.afterPush / 1000).toFixed(2)} s${how}`,
          targets: [{ label: 'push < 2 s', met: () => run.pushMs < 2000 }],
        },
      ];

      const walked = await rounds(0);
      const results = rows(walked, '', `; first push ${(firstPushMs / 1000).toFixed(1)} s, first status ${(firstStatusMs / 1000).toFixed(2)} s`);
      // The same with the file monitor (Watchman) on: the listing from its changes, not a walk.
      if (!(await watchmanInstalled())) {
        ctx.log('workspace-status: watchman is not installed; the file monitor rows are left out');
        return results;
      }
      const onMs = await timed(() => lode('monitor', 'on'));
      const recordMs = await timed(status);
      try {
        const monitored = await rounds(1);
        return [
          ...results,
          ...rows(monitored, '-monitor', `; lode monitor on ${(onMs / 1000).toFixed(2)} s, its first status (a walk) ${(recordMs / 1000).toFixed(2)} s`),
        ];
      } finally {
        await lode('monitor', 'off');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

function watchmanInstalled(): Promise<boolean> {
  return run('watchman', ['version']).then(
    () => true,
    () => false,
  );
}

/** The median of ROUNDS timed runs after an untimed one. */
async function medianOf(ctx: BenchContext, call: () => Promise<unknown>): Promise<number> {
  await call();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) times.push(await timed(call));
  ctx.log(`  ${times.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')}`);
  return latencies(times).p50Ms;
}
