import type { commit } from '@lode/contracts';
import type { BenchProject } from '../fixtures.ts';
import { latencyAndThroughput } from '../load.ts';
import { LOG_PAGE, TREE_PAGE } from './hops.ts';
import type { Scenario } from './scenario.ts';
import { SMALL_CALL_P50 } from './targets.ts';

type Page<T> = { data: T[]; nextCursor: string | null };

/** One page of a branch's files: the tree's index walked for a page, whatever the project's size. */
export const treePage: Scenario = {
  name: 'tree-page',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { files } = ctx.profile.browse;
    const versions = await ctx.fixtures.confirmed(p, files, { objects: false });
    await ctx.fixtures.commitAll(p, versions);
    const folder = versions[0].path.slice(0, versions[0].path.indexOf('/') + 1);
    // A page from the middle of the folder, as a file browser scrolling it asks.
    const middle = versions[Math.floor(files / 2)].path;
    const first = await page<commit.TreeFile>(p, `files?prefix=${encodeURIComponent(folder)}&limit=1`);
    const cursor = await cursorAfter(p, `files?prefix=${encodeURIComponent(folder)}`, first.nextCursor, (row: commit.TreeFile) => row.path >= middle);
    const path = `files?prefix=${encodeURIComponent(folder)}&limit=50&cursor=${encodeURIComponent(cursor)}`;
    const figures = await latencyAndThroughput(async () => {
      const { data } = await page<commit.TreeFile>(p, path);
      if (data.length !== 50) throw new Error(`the tree page listed ${data.length} files`);
    }, ctx.profile.small);
    return [
      {
        name: 'tree-page',
        ...figures,
        legs: ctx.legs(TREE_PAGE),
        note: `50 of ${files.toLocaleString('en-US')} files, ${ctx.profile.small.loop.inFlight} in flight`,
        targets: [SMALL_CALL_P50],
      },
    ];
  },
};

/**
 * One page of a branch's log that spans its own commits and its parent's: the lineage's two
 * segments are two index ranges, merged for the page.
 */
export const logPage: Scenario = {
  name: 'log-page',
  async run(ctx) {
    const p = await ctx.fixtures.project();
    const { commits } = ctx.profile.browse;
    const versions = await ctx.fixtures.confirmed(p, commits, { objects: false });
    const half = Math.floor(commits / 2);
    for (const v of versions.slice(0, half)) await commitOne(p, v);
    await p.api.call('POST', `/api/v1/projects/${p.projectId}/branches`, 201, { name: 'feature' });
    // Main and the feature alternate, so the feature's segments interleave with commits it does not hold.
    for (const [i, v] of versions.slice(half).entries()) await commitOne(p, v, i % 2 === 0 ? 'feature' : 'main');
    const own = Math.ceil((commits - half) / 2);
    const skip = Math.max(1, own - 25);
    const first = await page<commit.LogEntry>(p, `commits?branch=feature&limit=${skip}`);
    if (!first.nextCursor) throw new Error('the log has one page only');
    const path = `commits?branch=feature&limit=50&cursor=${encodeURIComponent(first.nextCursor)}`;
    const expected = Math.min(50, own + half - skip);
    const figures = await latencyAndThroughput(async () => {
      const { data } = await page<commit.LogEntry>(p, path);
      if (data.length !== expected || new Set(data.map((c) => c.branch)).size !== 2)
        throw new Error(`the log page listed ${data.length} commits of ${[...new Set(data.map((c) => c.branch))].join(', ')}`);
    }, ctx.profile.small);
    return [
      {
        name: 'log-page',
        ...figures,
        legs: ctx.legs(LOG_PAGE),
        note: `${expected} of ${own + half} commits across 2 segments, ${ctx.profile.small.loop.inFlight} in flight`,
        targets: [SMALL_CALL_P50],
      },
    ];
  },
};

async function page<T>(p: BenchProject, path: string): Promise<Page<T>> {
  return p.api.call<Page<T>>('GET', `/api/v1/projects/${p.projectId}/${path}`, 200);
}

async function commitOne(p: BenchProject, version: { fileId: string; version: number }, branch = 'main'): Promise<void> {
  await p.api.call('POST', `/api/v1/projects/${p.projectId}/commits`, 201, {
    message: 'bench',
    branch,
    fileVersions: [{ fileId: version.fileId, version: version.version, action: 'add' }],
  });
}

/** Walks the listing 200 at a time until `reached` holds for a row; the cursor after that page. */
async function cursorAfter<T>(p: BenchProject, path: string, start: string | null, reached: (row: T) => boolean): Promise<string> {
  let cursor = start;
  while (cursor) {
    const next: Page<T> = await page<T>(p, `${path}&limit=200&cursor=${encodeURIComponent(cursor)}`);
    if (next.data.some(reached) && next.nextCursor) return next.nextCursor;
    cursor = next.nextCursor;
  }
  throw new Error('the listing ended before the page looked for');
}
