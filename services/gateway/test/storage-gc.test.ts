import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '@lode/db';
import { describeContent } from '@lode/testkit';
import { startTestStack, type TestStack } from '@lode/system/testing';
import { StorageClient } from './storage-helpers.ts';

const HOUR = 3_600_000;
/** Seeded runs of the race property per storage driver; FC_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FC_RUNS ?? 12);
const SEED = Number(process.env.FC_SEED ?? 20_261_130);

describe.each(['local', 's3'] as const)('garbage collection of unreferenced objects (%s storage)', (storageDriver) => {
  let stack: TestStack;
  let db: Database;
  /** Collects as if the grace had passed for every mark made so far. */
  const collect = () => stack.upload.objects.runOnce(Date.now() + HOUR);

  beforeAll(async () => {
    stack = await startTestStack({ bus: 'local', storage: storageDriver });
    // The upload service's schema, read (and once written) to check what only its tables show.
    db = new Database({ connectionString: stack.databaseUrl, schema: 'files' });
  });
  afterAll(async () => {
    await db?.close();
    await stack?.stop();
  });

  const project = async () => new StorageClient(stack, await stack.seed.project());
  const obliterateAll = async (client: StorageClient, path: string) => {
    const dry = await client.api.post(client.url('/obliterate'), { path, dryRun: true });
    // Nothing ever pushed there yet.
    if (dry.status === 404) return undefined;
    expect(dry.status).toBe(200);
    if (dry.body.confirmToken === null) return dry.body;
    const run = await client.api.post(client.url('/obliterate'), { path, confirmToken: dry.body.confirmToken });
    // Another obliteration (or an upload) of the path between the dry run and the run: its plan changed.
    expect([200, 409]).toContain(run.status);
    return run.status === 200 ? run.body : undefined;
  };
  const keyOf = async (fileId: string, version: number) =>
    (await db.query<{ storage_key: string }>('SELECT storage_key FROM versions WHERE file_id = $1 AND version = $2', [fileId, version])).rows[0].storage_key;

  /** What must hold whatever happened: every live version's and every blob's object is in storage whole, and usage equals a recount. */
  async function expectNothingLost(client: StorageClient): Promise<void> {
    const { rows } = await db.query<{ storage_key: string; size: number }>(
      `SELECT storage_key, size FROM versions WHERE project_id = $1 AND purged_at IS NULL
       UNION SELECT storage_key, size FROM blobs WHERE project_id = $1`,
      [client.project.projectId],
    );
    const heads = await stack.storage.headMany(rows.map((r) => r.storage_key));
    const missing = rows.filter((r, i) => heads[i]?.size !== r.size).map((r) => r.storage_key);
    expect(missing).toEqual([]);
    const { usage, recount } = await client.usageAndRecount();
    expect(usage).toEqual(recount);
  }

  it('deletes what an obliteration freed after the grace, keeps what others share, and reports its progress', async () => {
    const client = await project();
    const shared = randomBytes(300);
    const gone = randomBytes(200);
    const a1 = await client.push('a.bin', shared);
    const a2 = await client.push('a.bin', gone);
    await client.push('b.bin', shared); // dedups: a1's object stays
    const [sharedKey, goneKey] = [await keyOf(a1.fileId, 1), await keyOf(a2.fileId, 2)];
    const before = await client.usage();

    const result = await obliterateAll(client, 'a.bin');
    expect(result).toMatchObject({ freedObjects: 1, freedBytes: 200, keptObjects: 1 });
    expect((await client.usage()).collectable).toEqual({ objects: 1, bytes: 200 });

    // Not before the grace.
    expect(await stack.upload.objects.runOnce(Date.now() - HOUR)).toEqual({ kept: 0, swept: 0, deleted: 0, freedBytes: 0 });
    expect(await stack.storage.head(goneKey)).not.toBeNull();
    // Content marked for collection does not dedup: an upload sends its bytes again.
    const initiated = await client.api.post(client.url('/files/upload/initiate'), { path: 'c.bin', ...describeContent(gone) });
    expect(initiated.body.dedup).toBeUndefined();

    // Replicas collecting at once share the work.
    const runs = await Promise.all([collect(), collect()]);
    expect(runs.reduce((sum, r) => sum + r.deleted, 0)).toBe(1);
    expect(runs.reduce((sum, r) => sum + r.freedBytes, 0)).toBe(200);
    expect(await stack.storage.head(goneKey)).toBeNull();
    expect(await stack.storage.head(sharedKey)).not.toBeNull();
    const after = await client.usage();
    expect(after.collectable).toEqual({ objects: 0, bytes: 0 });
    expect(after.storedBytes).toBe(before.storedBytes - 200);
    expect(after.objects).toBe(before.objects - 1);
    await expectNothingLost(client);

    // The same content uploaded again is stored again, and deduplicates again.
    await client.push('c.bin', gone);
    expect((await client.push('d.bin', gone)).dedup).toBe(true);
    await expectNothingLost(client);
  });

  it('keeps Git LFS objects, which git histories refer to, whatever is obliterated', async () => {
    const client = await project();
    const bytes = randomBytes(100);
    expect(await client.lfsPush(bytes)).toBe(true);
    const pushed = await client.push('lfs.bin', bytes); // dedups against the LFS object
    expect(pushed.dedup).toBe(true);
    const result = await obliterateAll(client, 'lfs.bin');
    expect(result).toMatchObject({ freedObjects: 0, keptObjects: 1 });
    await collect();
    await expectNothingLost(client);
    // Content Lode stored first and a git push then found stored is pinned by that push.
    const later = randomBytes(120);
    await client.push('mine.bin', later);
    expect(await client.lfsPush(later)).toBe(false);
    expect(await obliterateAll(client, 'mine.bin')).toMatchObject({ freedObjects: 0, keptObjects: 1 });
  });

  it('fails a dedup confirm cleanly when its content was collected after the initiate read it, and the upload that follows succeeds', async () => {
    const client = await project();
    const bytes = randomBytes(150);
    const first = await client.push('x.bin', bytes);
    const objectKey = await keyOf(first.fileId, 1);
    await obliterateAll(client, 'x.bin');
    await collect();
    expect(await stack.storage.head(objectKey)).toBeNull();
    // An initiate that read the blob just before the sweep removed it and inserted its dedup
    // reservation just after: the window no API call can be timed into, written as that initiate would.
    const file = (await db.query<{ id: string; tip_version: number }>('SELECT id, tip_version FROM files WHERE project_id = $1', [client.project.projectId]))
      .rows[0];
    const { sha256, size, contentMd5 } = describeContent(bytes);
    await db.query(
      `INSERT INTO uploads (id, project_id, file_id, version, storage_key, sha256, size, content_md5, dedup, uploader_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9, now() + interval '1 hour')`,
      [randomUUID(), client.project.projectId, file.id, file.tip_version + 1, objectKey, sha256, size, contentMd5, client.project.userId],
    );
    const confirm = await client.api.post(client.url('/files/upload/confirm'), { fileId: file.id, version: file.tip_version + 1, sha256, size, dedup: true });
    expect(confirm.status).toBe(404);
    expect(confirm.body.message).toMatch(/initiate again and upload the bytes/);
    const again = await client.push('x.bin', bytes);
    expect(again).toMatchObject({ dedup: false, version: file.tip_version + 1 });
    await expectNothingLost(client);
  });

  it('loses nothing confirmed whatever the order of uploads, dedups, confirms, obliterations, LFS pushes and collections (seeded runs)', async () => {
    const contents = [randomBytes(64), randomBytes(96), randomBytes(128)];
    const paths = ['p/one.bin', 'p/two.bin', 'p/three.bin'];
    type Op =
      | { kind: 'push' | 'initiate'; path: number; content: number }
      | { kind: 'confirm'; pending: number }
      | { kind: 'obliterate'; path: number }
      | { kind: 'lfs'; content: number }
      | { kind: 'collect' | 'expire' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constantFrom('push' as const, 'initiate' as const), path: fc.nat(2), content: fc.nat(2) }),
      fc.record({ kind: fc.constant('confirm' as const), pending: fc.nat(5) }),
      fc.record({ kind: fc.constant('obliterate' as const), path: fc.nat(2) }),
      fc.record({ kind: fc.constant('lfs' as const), content: fc.nat(2) }),
      fc.record({ kind: fc.constantFrom('collect' as const, 'expire' as const) }),
    );
    // Rounds of operations run at once, so confirms, initiates and obliterations meet the collector mid-way.
    const rounds = fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 3, maxLength: 6 });

    // What the runs did, so that a property that held only because nothing happened fails. Only what
    // the plans decide counts here: which of a round's racing calls wins is the machine's load's call.
    const seen = { deleted: 0, dedupInitiated: 0, obliterated: 0 };
    await fc.assert(
      fc.asyncProperty(rounds, async (plan) => {
        const client = await project();
        const pending: Record<string, unknown>[] = [];
        /** Initiate and PUT, as a client does: answers the confirm body it would send. */
        const initiate = async (path: string, bytes: Buffer): Promise<Record<string, unknown>> => {
          const form = await client.api.post(client.url('/files/upload/initiate'), { path, ...describeContent(bytes) });
          expect(form.status).toBe(200);
          if (!form.body.dedup) await (await fetch(form.body.uploadUrl, { method: 'PUT', headers: form.body.requiredHeaders, body: bytes })).arrayBuffer();
          const { sha256, size } = describeContent(bytes);
          const identity = { fileId: form.body.fileId, version: form.body.version, sha256, size };
          return form.body.dedup ? { ...identity, dedup: true } : { ...identity, storageKey: form.body.storageKey };
        };
        const confirm = async (body: Record<string, unknown>) => {
          const confirmed = await client.api.post(client.url('/files/upload/confirm'), body);
          // Confirmed, a number another confirm took, a reservation (or its content, or its object) collected
          // by an expiry run at once: never anything else.
          expect([200, 404, 409], JSON.stringify(confirmed.body)).toContain(confirmed.status);
          return confirmed.status;
        };
        const run = async (o: Op): Promise<void> => {
          if (o.kind === 'push' || o.kind === 'initiate') {
            const body = await initiate(paths[o.path], contents[o.content]);
            if (body.dedup) seen.dedupInitiated += 1;
            if (o.kind === 'push') await confirm(body);
            else pending.push(body);
          } else if (o.kind === 'confirm') {
            const body = pending[o.pending % Math.max(1, pending.length)];
            if (body) await confirm(body);
          } else if (o.kind === 'obliterate') {
            if ((await obliterateAll(client, paths[o.path]))?.obliteratedAt) seen.obliterated += 1;
          } else if (o.kind === 'lfs') {
            // An expiry run at once may collect the push's upload: its verify then answers 404, and git pushes again.
            const { batch, verify } = await client.lfsPushStatuses(contents[o.content]);
            expect(batch).toBe(200);
            expect([undefined, 200, 404, 409]).toContain(verify);
          } else if (o.kind === 'collect') seen.deleted += (await collect()).deleted;
          else await stack.collectReservations(Date.now() + 8 * 24 * HOUR);
        };
        for (const round of plan) await Promise.all(round.map(run));
        await expectNothingLost(client);
        seen.deleted += (await collect()).deleted;
        await expectNothingLost(client);
        await stack.upload.usage.fold();
        await expectNothingLost(client);
        // Content whatever the runs left behind is stored again, and a dedup of it confirms.
        expect(await confirm(await initiate(paths[0], contents[0]))).toBe(200);
        const dedup = await initiate(paths[1], contents[0]);
        expect(dedup.dedup).toBe(true);
        expect(await confirm(dedup)).toBe(200);
        await expectNothingLost(client);
      }),
      { numRuns: RUNS, seed: SEED + (storageDriver === 's3' ? 1 : 0), endOnFailure: true },
    );
    expect(seen.obliterated).toBeGreaterThan(0);
    expect(seen.deleted).toBeGreaterThan(0);
    expect(seen.dedupInitiated).toBeGreaterThan(0);
  }, 300_000);
});
