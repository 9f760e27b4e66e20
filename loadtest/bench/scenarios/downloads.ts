import type { download } from '@lode/contracts';
import { serial, timed } from '../load.ts';
import { DOWNLOAD_URLS } from './hops.ts';
import type { Scenario } from './scenario.ts';

/**
 * POST /files/download-urls for `entries` committed files, as a pull asks for what sync reported
 * (by fileId, the tip on main): one lookup of every entry, then a presigned URL each. The files are
 * seeded and committed once; their objects are not needed, since nothing reads storage.
 */
export const downloadUrls: Scenario = {
  name: 'download-urls',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { entries } = ctx.profile.downloadUrls;
    const versions = await ctx.fixtures.confirmed(p, entries, { objects: false });
    await ctx.fixtures.commitAll(p, versions);
    const body = { files: versions.map((v) => ({ fileId: v.fileId })) };
    const figures = await serial(ctx.profile.downloadUrls, () =>
      timed(async () => {
        const { results } = await p.api.call<{ results: download.DownloadResult[] }>('POST', `/api/v1/projects/${p.projectId}/files/download-urls`, 200, body);
        if (results.length !== entries || !results.every((r) => 'downloadUrl' in r))
          throw new Error(`download-urls answered ${JSON.stringify(results).slice(0, 300)}`);
      }),
    );
    const perSecond = Math.round(entries / (figures.p50Ms / 1000)).toLocaleString('en-US');
    return [
      {
        name: `download-urls-${entries}`,
        ...figures,
        legs: ctx.legs(DOWNLOAD_URLS),
        note: `${ctx.deployment.storage}, ${perSecond} URLs/s, ${figures.rounds} rounds`,
      },
    ];
  },
};
