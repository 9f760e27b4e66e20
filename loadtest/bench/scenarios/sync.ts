import { randomUUID } from 'node:crypto';
import { commit, sync } from '@lode/contracts';
import type { BulkVersion } from '@lode/testkit';
import type { BenchProject } from '../fixtures.ts';
import { plus, times } from '../legs.ts';
import { serial, timed } from '../load.ts';
import { REMOTE_ONLY_PAGE, SYNC_BATCH } from './hops.ts';
import type { Scenario, ScenarioResult } from './scenario.ts';
import { at, filesPerSecondAtLeast } from './targets.ts';

type Workspace = { path: string; sha256: string }[][];

/**
 * A client's full sync of a project of `files` committed files, in batches of 10,000 in one session
 * with includeRemoteOnly on the last: 1% of the files are edited locally and 1% are missing, so the
 * answer has modified and missing rows too. The files are seeded in bulk and committed 25,000 at a
 * time beforehand. Measured with the batches sent one at a time, then `parallel` at a time (the last
 * batch waits for the others either way).
 */
export const syncProject: Scenario = {
  name: 'sync',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { files, parallel, budgetMs } = ctx.profile.sync;
    const remote: BulkVersion[] = [];
    for (let i = 0; i < files; i += commit.MAX_COMMIT_ENTRIES) {
      ctx.log(`sync: seeding files ${i.toLocaleString('en-US')}+`);
      const part = await ctx.fixtures.confirmed(p, Math.min(commit.MAX_COMMIT_ENTRIES, files - i), { objects: false });
      await ctx.fixtures.commitAll(p, part);
      remote.push(...part);
    }
    const local = remote.filter((_, i) => i % 100 !== 0).map((f, i) => ({ path: f.path, sha256: i % 100 === 1 ? 'f'.repeat(64) : f.sha256 }));
    const batches: Workspace = [];
    for (let i = 0; i < local.length; i += sync.MAX_SYNC_BATCH) batches.push(local.slice(i, i + sync.MAX_SYNC_BATCH));

    const measure = async (inParallel: number, name: string): Promise<ScenarioResult> => {
      const figures = await serial({ ...ctx.profile.sync, budgetMs: budgetMs && budgetMs / 2 }, () => timed(() => fullSync(p, batches, inParallel, files)));
      // The last batch waits for the others: ⌈(batches − 1) / parallel⌉ steps, then the last and its remote-only page.
      const steps = Math.ceil((batches.length - 1) / inParallel) + 1;
      return {
        name,
        ...figures,
        legs: ctx.legs(plus(times(steps, SYNC_BATCH), REMOTE_ONLY_PAGE)),
        note: `${batches.length} batches, ${inParallel} at a time, ${Math.round(files / (figures.p50Ms / 1000)).toLocaleString('en-US')} files/s, ${figures.rounds} rounds`,
        targets: at(files, 100_000, filesPerSecondAtLeast(files, 200_000)),
      };
    };
    return [await measure(1, `sync-${files}`), await measure(parallel, `sync-${files}-x${parallel}`)];
  },
};

/** Every batch but the last, `parallel` at a time, then the last with includeRemoteOnly; checks one row per file came back. */
async function fullSync(p: BenchProject, batches: Workspace, parallel: number, expectedRows: number): Promise<void> {
  const id = randomUUID();
  const path = `/api/v1/projects/${p.projectId}/sync`;
  const send = async (batch: number, includeRemoteOnly: boolean) => {
    const answer = await p.api.call<{ files: unknown[] }>('POST', path, 200, { files: batches[batch], session: { id, batch }, includeRemoteOnly });
    return answer.files.length;
  };
  let rows = 0;
  let next = 0;
  const last = batches.length - 1;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < last) {
        // Not `rows += await …`: that reads rows before the await and loses the other workers' counts.
        const received = await send(next++, false);
        rows += received;
      }
    }),
  );
  rows += await send(last, true);
  if (rows !== expectedRows) throw new Error(`a full sync answered ${rows} rows, not ${expectedRows}`);
}
