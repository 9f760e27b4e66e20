import { randomUUID } from 'node:crypto';
import { commit, type storage as contract } from '@lode/contracts';
import { Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import { serviceNamed } from '@lode/system';
import { createLogger } from '@lode/telemetry';
import { bulkVersions, type BulkVersion } from '@lode/testkit';
import { ObjectCollector } from '@lode/upload/domain/object-gc';
import { CollectableRepository } from '@lode/upload/repo/collectable-repo';
import type { BenchProject } from '../fixtures.ts';
import { times, type Hops } from '../legs.ts';
import { latencyAndThroughput, timed } from '../load.ts';
import type { BenchContext, Scenario } from './scenario.ts';
import { at } from './targets.ts';

/** One read: the gateway asks the upload service, which reads the totals and the unfolded deltas in one statement. */
const USAGE: Hops = { http: 1, bus: 1, pg: 1 };
/** The collector's batches, as the upload service runs it; the bare DELETE baseline uses the same. */
const GC_BATCH = 500;
/** Per batch, a sweep transaction and a delete transaction; the storage DELETE between has no baseline. */
const GC_BATCH_HOPS: Hops = { http: 0, pg: 2 };
/** The usage fold runs every 10 s by default: a project's deltas are all folded well within this. */
const FOLD_WAIT_MS = 120_000;

/**
 * GET /usage of a project of `versions` confirmed versions, seeded in bulk, once the fold has moved
 * every delta into the project's totals (the state a project is in between its changes): the
 * answer is the totals plus no unfolded rows, so its cost should not grow with the project.
 */
export const usageRead: Scenario = {
  name: 'usage',
  async run(ctx) {
    const direct = ctx.deployment.direct;
    if (!direct) {
      ctx.log('usage: skipped (needs bulk seeding: its project is too large to push through the API)');
      return [];
    }
    const { versions } = ctx.profile.usage;
    const p = await ctx.fixtures.project();
    await seed(ctx, p, versions, 'usage');
    await withUploadSchema(direct.databaseUrl, async (db) => {
      ctx.log('usage: waiting for the fold');
      const until = Date.now() + FOLD_WAIT_MS;
      for (;;) {
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_deltas WHERE project_id = $1', [p.projectId]);
        if (rows[0].n === 0) break;
        if (Date.now() > until) throw new Error(`usage: ${rows[0].n} deltas still unfolded after ${FOLD_WAIT_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    const path = `/api/v1/projects/${p.projectId}/usage`;
    const answer = await p.api.call<contract.UsageReply>('GET', path, 200);
    if (answer.versions !== versions) throw new Error(`usage: ${answer.versions} versions counted of ${versions}`);
    const figures = await latencyAndThroughput(async () => {
      await p.api.call('GET', path, 200);
    }, ctx.profile.small);
    return [
      {
        name: `usage-${versions}`,
        ...figures,
        legs: ctx.legs(USAGE),
        note: `${versions.toLocaleString('en-US')} versions, totals folded; ops/s with ${ctx.profile.small.loop.inFlight} in flight`,
        targets: at(versions, 1_000_000, { label: 'p99 < 50 ms', met: (f) => f.p99Ms < 50 }),
      },
    ];
  },
};

/**
 * The object collector over a project of `versions` versions of which `collectableShare` were
 * obliterated: their objects are in storage and marked, as an obliteration leaves them, and the
 * collector (the upload service's, run here once with no grace) sweeps and deletes them all. Beside
 * it, the storage driver's bare DELETE of as many other objects, in the collector's batches, in the
 * same run: the collector's rate is compared with that.
 *
 * Obliterating that many files one request each would take hours, so the obliteration's writes are
 * made directly, mirroring its transaction: the versions purged (reason obliterate), the usage delta
 * of their logical bytes and count, and the marks through the upload service's own repository.
 * Seeded versions have no content-store row; one is written for each collectable object, as an
 * upload of new content leaves it, so the sweep deletes blob rows as it would.
 */
export const objectCollection: Scenario = {
  name: 'gc',
  async run(ctx) {
    const direct = ctx.deployment.direct;
    if (!direct) {
      ctx.log('gc: skipped (needs direct database and storage access)');
      return [];
    }
    const { versions, collectableShare } = ctx.profile.gc;
    const p = await ctx.fixtures.project();
    const doomed = await seed(ctx, p, versions, 'gc', collectableShare);
    ctx.log(`gc: writing ${doomed.length.toLocaleString('en-US')} objects and their marks`);
    await direct.blobs(doomed);
    const bare = bulkVersions(p.projectId, doomed.length, `bench-bare-${randomUUID().slice(0, 8)}`);
    await direct.blobs(bare);

    return withUploadSchema(direct.databaseUrl, async (db) => {
      await markAsObliterated(db, p, doomed);
      const bareMs = await timed(() => deleteInBatches(direct.blobStorage, bare));
      const collectable = new CollectableRepository();
      const collector = new ObjectCollector({ db, collectable, storage: direct.blobStorage, logger: createLogger('bench-gc', 'silent') }, { graceMs: 0 });
      ctx.log('gc: collecting');
      let run = { kept: 0, swept: 0, deleted: 0, freedBytes: 0 };
      const ms = await timed(async () => {
        run = await collector.runOnce();
      });
      if (run.deleted !== doomed.length || run.swept !== doomed.length || run.kept !== 0)
        throw new Error(`gc: ${JSON.stringify(run)} for ${doomed.length} collectable objects`);
      const left = await collectable.pending(db, p.projectId);
      if (Number(left.objects) !== 0) throw new Error(`gc: ${left.objects} marks left`);
      const rate = doomed.length / (ms / 1000);
      const bareRate = bare.length / (bareMs / 1000);
      const perSecond = (n: number) => Math.round(n).toLocaleString('en-US');
      return [
        {
          name: `gc-${versions}`,
          p50Ms: ms,
          p99Ms: ms,
          opsPerSec: rate,
          legs: ctx.legs(times(Math.ceil(doomed.length / GC_BATCH), GC_BATCH_HOPS)),
          note:
            `${ctx.deployment.storage}, ${doomed.length.toLocaleString('en-US')} of ${versions.toLocaleString('en-US')} versions collectable, one run: ` +
            `${perSecond(rate)} objects/s against bare delete ${perSecond(bareRate)}/s (${(rate / bareRate).toFixed(2)}×)`,
        },
      ];
    });
  },
};

/**
 * `versions` confirmed versions of new files in bulk, 25,000 per statement; answers the first
 * `share` of each statement's versions (their objects are not written here).
 */
export async function seed(ctx: BenchContext, p: BenchProject, versions: number, name: string, share = 0): Promise<BulkVersion[]> {
  const kept: BulkVersion[] = [];
  for (let i = 0; i < versions; i += commit.MAX_COMMIT_ENTRIES) {
    if (i % 100_000 === 0) ctx.log(`${name}: seeding versions ${i.toLocaleString('en-US')}+`);
    const part = await ctx.fixtures.confirmed(p, Math.min(commit.MAX_COMMIT_ENTRIES, versions - i), { objects: false });
    kept.push(...part.slice(0, Math.round(part.length * share)));
  }
  return kept;
}

export async function withUploadSchema<T>(databaseUrl: string, work: (db: Database) => Promise<T>): Promise<T> {
  // Seeding writes millions of rows in one statement: no limit a service's requests need.
  const db = new Database({
    connectionString: databaseUrl,
    schema: serviceNamed('upload').schema,
    max: 2,
    timeouts: { statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0 },
  });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/**
 * What an obliteration of these versions writes, a commit's worth per transaction: the versions
 * purged by the project's member, their usage delta, a content-store row per object (as the upload
 * that stored it would have left) and the object's mark.
 */
async function markAsObliterated(db: Database, p: BenchProject, versions: readonly BulkVersion[]): Promise<void> {
  const collectable = new CollectableRepository();
  for (let i = 0; i < versions.length; i += commit.MAX_COMMIT_ENTRIES) {
    const part = versions.slice(i, i + commit.MAX_COMMIT_ENTRIES);
    await db.transaction(async (tx) => {
      await tx.query(
        `WITH purged AS (
           UPDATE versions SET purged_at = now(), purged_by = $3, purged_by_name = 'Bench', purge_reason = 'obliterate', purge_id = $4
           WHERE project_id = $1 AND file_id = ANY($2::uuid[]) AND purged_at IS NULL
           RETURNING size
         )
         INSERT INTO usage_deltas (project_id, logical_bytes, stored_bytes, versions, objects)
         SELECT $1, -sum(size), 0, -count(*), 0 FROM purged HAVING count(*) > 0`,
        [p.projectId, part.map((v) => v.fileId), p.userId, randomUUID()],
      );
      await tx.query(
        `INSERT INTO blobs (project_id, sha256, size, storage_key)
         SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[]) ON CONFLICT DO NOTHING`,
        [p.projectId, part.map((v) => v.sha256), part.map((v) => v.size), part.map((v) => v.storageKey)],
      );
      await collectable.mark(
        tx,
        part.map((v) => ({ storageKey: v.storageKey, projectId: p.projectId, sha256: v.sha256, size: v.size })),
      );
    });
  }
}

/** The driver's DELETE alone, in the collector's batches, one batch at a time as the collector sends them. */
async function deleteInBatches(storage: BlobStorage, versions: readonly BulkVersion[]): Promise<void> {
  for (let i = 0; i < versions.length; i += GC_BATCH) await storage.delete(versions.slice(i, i + GC_BATCH).map((v) => v.storageKey));
}
