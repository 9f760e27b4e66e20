import { commit } from '@lode/contracts';
import type { BulkVersion } from '@lode/testkit';
import type { BenchProject } from '../fixtures.ts';
import { serial, timed } from '../load.ts';
import { addAll } from '../push.ts';
import { COMMIT } from './hops.ts';
import type { Scenario } from './scenario.ts';
import { at, p50AtMost } from './targets.ts';

/** Commits of one confirmed version each, one after another; every version is seeded beforehand in one go. */
export const commitOne: Scenario = {
  name: 'commit-1',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { rounds, warmup } = ctx.profile.commitOne;
    const versions = await ctx.fixtures.confirmed(p, rounds + warmup, { objects: false });
    const figures = await serial(ctx.profile.commitOne, (round) => timed(() => commitAll(p, [versions[round]])));
    return [{ name: 'commit-1', ...figures, legs: ctx.legs(COMMIT), note: `${figures.rounds} rounds`, targets: [p50AtMost(4)] }];
  },
};

/** Commits of `files` confirmed versions (25,000: the API's limit), each round's versions seeded in bulk before it. */
export const commitLarge: Scenario = {
  name: 'commit-large',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { files } = ctx.profile.commitLarge;
    const figures = await serial(ctx.profile.commitLarge, async () => {
      const versions = await ctx.fixtures.confirmed(p, files, { objects: false });
      return timed(() => commitAll(p, versions));
    });
    const perSecond = Math.round(files / (figures.p50Ms / 1000)).toLocaleString('en-US');
    return [
      {
        name: `commit-${files}`,
        ...figures,
        legs: ctx.legs(COMMIT),
        note: `${perSecond} files/s, ${figures.rounds} rounds`,
        targets: at(files, commit.MAX_COMMIT_ENTRIES, p50AtMost(1000)),
      },
    ];
  },
};

async function commitAll(p: BenchProject, versions: readonly BulkVersion[]): Promise<void> {
  const created = await p.api.call<{ fileCount: number }>('POST', `/api/v1/projects/${p.projectId}/commits`, 201, addAll(versions));
  if (created.fileCount !== versions.length) throw new Error(`the commit counted ${created.fileCount} files`);
}
