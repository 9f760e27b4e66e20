import type { restore as contract } from '@lode/contracts';
import { serial, timed } from '../load.ts';
import { RESTORE } from './hops.ts';
import type { Scenario } from './scenario.ts';
import { at, p50AtMost } from './targets.ts';

/**
 * Restores of `files` deleted files to their first version. The files, their objects and their
 * commit are seeded once; before each round a commit deletes them again (outside the timing), so
 * every round restores the same deleted files and makes each a new version.
 */
export const restoreFiles: Scenario = {
  name: 'restore',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { files } = ctx.profile.restore;
    const versions = await ctx.fixtures.confirmed(p, files, { objects: true });
    await ctx.fixtures.commitAll(p, versions);
    const commits = `/api/v1/projects/${p.projectId}/commits`;
    const deleteAll = { message: 'bench: delete', fileVersions: versions.map((v) => ({ fileId: v.fileId, action: 'delete' })) };
    const body = { files: versions.map((v) => ({ fileId: v.fileId, toVersion: v.version })) };
    const figures = await serial(ctx.profile.restore, async () => {
      await p.api.call('POST', commits, 201, deleteAll);
      return timed(async () => {
        const result = await p.api.call<contract.RestoreResult>('POST', `/api/v1/projects/${p.projectId}/restore`, 200, body);
        if (result.restored.length !== files)
          throw new Error(`restored ${result.restored.length} of ${files}: ${JSON.stringify(result.skipped).slice(0, 300)}`);
      });
    });
    const perSecond = Math.round(files / (figures.p50Ms / 1000)).toLocaleString('en-US');
    return [
      {
        name: `restore-${files}`,
        ...figures,
        legs: ctx.legs(RESTORE),
        note: `${ctx.deployment.storage}, ${perSecond} files/s, ${figures.rounds} rounds`,
        targets: at(files, 1000, p50AtMost(1000)),
      },
    ];
  },
};
