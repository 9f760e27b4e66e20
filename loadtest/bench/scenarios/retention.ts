import type { retention } from '@lode/contracts';
import { timed } from '../load.ts';
import { sizeFromEnv } from '../profile.ts';
import type { Scenario, ScenarioResult } from './scenario.ts';
import { seed, withUploadSchema } from './storage.ts';

/** Each seeded file gets this many versions: its first, seeded in bulk, and older ones added beside it. */
const VERSIONS_PER_FILE = 4;
/** Files a retention batch reads (the upload service's batch size). */
const BATCH_FILES = 250;
/** Per batch: the files' page, the versions past the keep, and (with versions to remove) the kept-objects probe. */
const BATCH_PG = 3;
/** Per batch of a run, besides evaluating it: lock the files, probe the kept objects, purge, mark. */
const RUN_BATCH_PG = 4;

/**
 * The retention rules' evaluation (their "mark phase": what a dry run and each run's batches do)
 * over a project of `versions` versions, timed through POST /retention/dry-run: the files in
 * path-key keyset batches, the rules matched against each path, each matched file's versions past
 * its keepLast read from the (file, version) index, and, where versions would go, the commit and
 * lock services asked and the kept objects probed. Two rules sets: one keeping every version (the
 * walk alone), one removing half of them (the bus questions and object probes too), that one then
 * confirmed and run. Reported as versions evaluated per second.
 *
 * LODE_BENCH_RETENTION_VERSIONS sets another size in either profile (10000000 for the mark the
 * storage goals name).
 *
 * The extra versions are written directly (pushing them would take hours), as copies of each
 * file's seeded version (renumbered to be the newest) a year older; none is purged before the run.
 */
export const retentionMark: Scenario = {
  name: 'retention',
  async run(ctx) {
    const direct = ctx.deployment.direct;
    if (!direct) {
      ctx.log('retention: skipped (needs bulk seeding: its project is too large to push through the API)');
      return [];
    }
    const versions = sizeFromEnv('LODE_BENCH_RETENTION_VERSIONS', 1, ctx.profile.retention.versions);
    const p = await ctx.fixtures.project();
    const files = Math.ceil(versions / VERSIONS_PER_FILE);
    await seed(ctx, p, files, 'retention');
    await withUploadSchema(direct.databaseUrl, async (db) => {
      ctx.log(`retention: adding ${VERSIONS_PER_FILE - 1} older versions to each of ${files.toLocaleString('en-US')} files`);
      await db.query('UPDATE files SET tip_version = $2 WHERE project_id = $1', [p.projectId, VERSIONS_PER_FILE]);
      await db.query('UPDATE versions SET version = $2 WHERE project_id = $1 AND version = 1', [p.projectId, VERSIONS_PER_FILE]);
      await db.query(
        `INSERT INTO versions (id, project_id, file_id, version, sha256, size, storage_key, uploader_id, uploader_name, origin, created_at)
         SELECT gen_random_uuid(), v.project_id, v.file_id, g, v.sha256, v.size, v.storage_key, v.uploader_id, v.uploader_name, 'dedup', v.created_at - interval '365 days'
         FROM versions v CROSS JOIN generate_series(1, $2::int - 1) AS g WHERE v.project_id = $1`,
        [p.projectId, VERSIONS_PER_FILE],
      );
      // As autovacuum would after a load this size (the test machines run without it): plans made
      // on the empty tables' statistics are not what a project of this size gets.
      await db.query('ANALYZE files, versions');
    });
    const total = files * VERSIONS_PER_FILE;
    const path = `/api/v1/projects/${p.projectId}/retention`;
    const results: ScenarioResult[] = [];
    let plan: retention.RetentionPlan | undefined;
    for (const [label, keepLast, removed] of [
      ['keep-all', VERSIONS_PER_FILE, 0],
      ['remove-half', VERSIONS_PER_FILE / 2, total / 2],
    ] as const) {
      await p.api.call('PUT', path, 200, { rules: [{ glob: '**', keepLast }] });
      ctx.log(`retention: dry run, ${label}`);
      const ms = await timed(async () => {
        plan = await p.api.call<retention.RetentionPlan>('POST', `${path}/dry-run`, 200, {});
      });
      if (plan?.versionCount !== removed) throw new Error(`retention: ${plan?.versionCount} versions planned, ${removed} expected (${label})`);
      const rate = total / (ms / 1000);
      results.push({
        name: `retention-${label}-${total}`,
        p50Ms: ms,
        p99Ms: ms,
        opsPerSec: rate,
        legs: ctx.legs({ http: 1, bus: 1, pg: Math.ceil(files / BATCH_FILES) * BATCH_PG }),
        note:
          `${total.toLocaleString('en-US')} versions in ${files.toLocaleString('en-US')} files, ${removed.toLocaleString('en-US')} to remove: ` +
          `${Math.round(rate).toLocaleString('en-US')} versions/s (10,000,000 in ~${Math.round(10_000_000 / rate / 60)} min)`,
      });
    }
    // The last dry run confirmed: its plan evaluated once more whole, then batch by batch, each
    // batch's versions purged in its own transaction and their objects' references checked.
    ctx.log('retention: run, remove-half');
    let applied: retention.RetentionPlan | undefined;
    const runMs = await timed(async () => {
      applied = await p.api.call<retention.RetentionPlan>('POST', `${path}/run`, 200, { confirmToken: plan?.confirmToken });
    });
    if (applied?.versionCount !== total / 2) throw new Error(`retention: ${applied?.versionCount} versions removed, ${total / 2} planned`);
    results.push({
      name: `retention-run-remove-half-${total}`,
      p50Ms: runMs,
      p99Ms: runMs,
      opsPerSec: total / (runMs / 1000),
      legs: ctx.legs({ http: 1, bus: 1, pg: Math.ceil(files / BATCH_FILES) * (2 * BATCH_PG + RUN_BATCH_PG) }),
      note: `${(total / 2).toLocaleString('en-US')} versions removed in ${(runMs / 1000).toFixed(1)} s; the gateway waits 10 min for a run`,
    });
    return results;
  },
};
