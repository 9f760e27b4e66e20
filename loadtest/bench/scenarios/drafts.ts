import { commit } from '@lode/contracts';
import type { Hops } from '../legs.ts';
import { timed } from '../load.ts';
import { watchRss, type ProcessMemory } from '../memory.ts';
import type { Scenario } from './scenario.ts';

/**
 * Files of the draft: 100,000 (LODE_BENCH_DRAFT_FILES for another size, such as a
 * 1,000,000-file import), fewer in --quick or when every file must be pushed over the API (--url).
 */
const FULL_FILES = Number(process.env.LODE_BENCH_DRAFT_FILES ?? 100_000);
const SMALL_FILES = 10_000;

/**
 * The fence pages (one lock-service call per 25,000 files, two in flight) and the transaction: the
 * draft read, the planner setting, the sequence, the branch, the branch changes, the commit row and
 * the draft's deletion; not counted, as they grow with the draft: one statement per 25,000 entries
 * checked and written, one per 25,000 entries' event parts.
 */
const DRAFT_COMMIT: Hops = { http: 1, writeLimit: 1, bus: 3, pg: 9 };

/**
 * A draft of `files` files staged in calls of 25,000, then finalized as one commit, once, while every
 * process's RSS is sampled: from the finalize until the sync read model applied the commit (its
 * commit.created parts travel to the lock and sync services after the 201). Memory should not grow
 * with the draft: the commit service reads the draft page by page and writes the commit in SQL.
 */
export const draftCommit: Scenario = {
  name: 'draft-commit',
  async run(ctx) {
    const files = ctx.profile.name === 'quick' || !ctx.fixtures.bulk ? SMALL_FILES : FULL_FILES;
    const p = await ctx.fixtures.project();
    ctx.log(`draft-commit: seeding ${files.toLocaleString('en-US')} versions`);
    const versions = await ctx.fixtures.confirmed(p, files, { objects: false });
    const base = `/api/v1/projects/${p.projectId}/drafts`;
    const draft = await p.api.call<{ id: string }>('POST', base, 201, { message: 'bench import' });
    const staging = await timed(async () => {
      for (let i = 0; i < files; i += commit.MAX_COMMIT_ENTRIES) {
        const fileVersions = versions.slice(i, i + commit.MAX_COMMIT_ENTRIES).map((v) => ({ fileId: v.fileId, version: v.version, action: 'add' }));
        await p.api.call('POST', `${base}/${draft.id}/files`, 200, { fileVersions });
      }
    });

    const watch = ctx.deployment.processes.length > 0 ? await watchRss(ctx.deployment.processes) : undefined;
    const started = performance.now();
    let finalize: number;
    let applied: number | undefined;
    let memory: ProcessMemory[];
    try {
      finalize = await timed(async () => {
        const created = await p.api.call<{ fileCount: number }>('POST', `${base}/${draft.id}/commit`, 201, {});
        if (created.fileCount !== files) throw new Error(`the draft's commit counted ${created.fileCount} files`);
      });
      ctx.log(`draft-commit-${files}: finalize ${(finalize / 1000).toFixed(1)} s`);
      // The finalize's own memory (the commit transaction) apart from the delivery of its parts after the 201.
      watch?.mark();
      await syncedUp(p.api, p.projectId);
      applied = performance.now() - started;
    } finally {
      // Stopped whatever happens: it samples processes that the deployment's stop ends.
      memory = (await watch?.stop()) ?? [];
      // A run that failed (a finalize refused, a sync that never applied it) still shows its memory.
      if (applied === undefined) ctx.log(`draft-commit-${files} failed\n${memoryReport(files, memory).join('\n')}`);
    }

    const details = memoryReport(files, memory);
    const perSecond = Math.round(files / (finalize / 1000)).toLocaleString('en-US');
    const imported = `one round, ${perSecond} files/s; staging ${(staging / 1000).toFixed(1)} s in ${Math.ceil(files / commit.MAX_COMMIT_ENTRIES)} calls; sync applied it ${(applied / 1000).toFixed(1)} s after the finalize began`;
    // Logged as soon as measured, as the finalize is: a run of many minutes keeps its figures whatever happens after.
    ctx.log(`draft-commit-${files}: ${imported}\n${details.join('\n')}`);
    // A user's next step after an import, once memory is measured: a branch of the whole tree, which the
    // commit service and sync's read model each copy.
    const branched = await timed(() => p.api.call('POST', `/api/v1/projects/${p.projectId}/branches`, 201, { name: 'after-import' }));
    const branchSynced = await timed(() => syncedUp(p.api, p.projectId, 'after-import'));
    const note = `${imported}; a branch of it created in ${(branched / 1000).toFixed(1)} s, in sync ${(branchSynced / 1000).toFixed(1)} s after`;
    return [
      {
        name: `draft-commit-${files}`,
        p50Ms: finalize,
        p99Ms: finalize,
        opsPerSec: 1000 / finalize,
        legs: ctx.legs(DRAFT_COMMIT),
        note,
        details,
      },
    ];
  },
};

function memoryReport(files: number, memory: ProcessMemory[]): string[] {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
  const header = `memory during draft-commit-${files} (finalize, then until sync applied it): RSS before → peak (sampled every 20 ms) → after`;
  if (memory.length === 0) return [header, '  not measured: the deployment runs elsewhere (--url)'];
  const phases = (m: ProcessMemory) => m.phases.map((peak) => `+${mib(Math.max(0, peak - m.before))}`).join(', then ');
  return [
    header,
    ...memory.map(
      (m) =>
        `  ${m.name.padEnd(9)} ${mib(m.before)} → ${mib(m.peak)} → ${mib(m.after)}  (peak +${mib(m.peak - m.before)}: finalize ${phases(m)} until sync applied it)`,
    ),
  ];
}

/** Until a sync of `branch` answers: it waits for the read model to apply the latest commit or branch, and says 503 (or 504) while it has not. */
async function syncedUp(
  api: { call<T>(method: string, path: string, expected: number, body?: unknown): Promise<T> },
  projectId: string,
  branch?: string,
): Promise<void> {
  const deadline = performance.now() + 600_000;
  for (;;) {
    try {
      await api.call('POST', `/api/v1/projects/${projectId}/sync`, 200, { files: [], branch });
      return;
    } catch (error) {
      // 504: the sync waited for its read model longer than the gateway waits for it (a large commit).
      if (!(error instanceof Error && / 50[34] /.test(error.message)) || performance.now() > deadline) throw error;
    }
  }
}
