import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { watchProcessErrors } from '@lode/testkit/process-errors';
import { UPLOAD_SCHEMA } from '@lode/upload';
import { FilesRepository } from '../src/repo/files-repo.ts';
import { uploadDatabase } from './upload-database.ts';

/** Past int4: the versions lookup fails in Postgres (22003), whatever the edge let through. */
const BEYOND_INT4 = 2 ** 31;

describe('FilesRepository.resolve', () => {
  const store = uploadDatabase();
  const repo = new FilesRepository();

  it('rejects with validation_failed when the versions lookup fails before the paths lookup ends, leaving no rejection unhandled', async () => {
    // The paths lookup waits behind a lock on `files`, so the versions lookup (which reads only
    // `versions`) is sure to fail first: the order in which an unhandled rejection used to kill the process.
    const blocker = new pg.Client({ connectionString: store.url });
    await blocker.connect();
    await blocker.query(`BEGIN; LOCK TABLE ${UPLOAD_SCHEMA}.files IN ACCESS EXCLUSIVE MODE`);
    const watch = watchProcessErrors();
    try {
      const outcome = repo.resolve(store.db, randomUUID(), [randomUUID()], [BEYOND_INT4]).then(
        () => 'resolved',
        (error: unknown) => error,
      );
      // Either the call settles or the failure goes unhandled; both happen while the lock is held.
      await Promise.race([outcome, watch.first]);
      await blocker.query('ROLLBACK');
      const error = await outcome;
      await watch.settle();
      expect(watch.reasons).toEqual([]);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('validation_failed');
    } finally {
      watch.stop();
      await blocker.end();
    }
  });
});

describe('FilesRepository: a confirm consumes its reservation', () => {
  const store = uploadDatabase();
  const repo = new FilesRepository();
  const projectId = randomUUID();
  const uploaderId = randomUUID();

  const sha = (c: string) => c.repeat(64);
  async function reserve(path: string, content: string, storageKey = `p/${projectId}/u/${randomUUID()}`) {
    const entry = {
      path,
      pathKey: path,
      sha256: sha(content),
      size: 10,
      contentMd5: 'bWQ1bWQ1bWQ1bWQ1bWQ1bQ==',
      uploadId: randomUUID(),
      storageKey,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    const [row] = await repo.reserveBatch(store.db, projectId, uploaderId, [entry]);
    return { ...row, uploadId: entry.uploadId, storageKey: row.dedup ? null : storageKey, sha256: entry.sha256 };
  }
  const record = (r: Awaited<ReturnType<typeof reserve>>, storageKey: string) =>
    store.db.transaction((tx) =>
      repo.recordVersions(tx, projectId, [
        {
          fileId: r.file_id,
          version: r.version,
          sha256: r.sha256,
          size: 10,
          storageKey,
          uploaderId,
          uploaderName: 'Ada',
          uploadId: r.uploadId,
          origin: r.dedup ? 'dedup' : 'upload',
        },
      ]),
    );
  const lookup = (r: Awaited<ReturnType<typeof reserve>>) => ({ storageKey: r.storageKey, fileId: r.file_id, version: r.version, sha256: r.sha256, size: 10 });

  it('deletes the reservation it records, and is found again as the version it recorded', async () => {
    const r = await reserve('a.bin', 'a');
    expect(await repo.findReservations(store.db, projectId, [lookup(r)])).toEqual([expect.objectContaining({ id: r.uploadId, confirmed: false })]);
    expect(await record(r, r.storageKey!)).toEqual(new Set([r.uploadId]));

    const { rows } = await store.db.query('SELECT id FROM uploads WHERE id = $1', [r.uploadId]);
    expect(rows).toEqual([]);
    expect(await repo.findReservations(store.db, projectId, [lookup(r)])).toEqual([
      {
        id: r.uploadId,
        file_id: r.file_id,
        version: 1,
        storage_key: r.storageKey,
        sha256: r.sha256,
        size: 10,
        dedup: false,
        confirmed: true,
        multipart: false,
      },
    ]);
    // Another upload's key for the same version names nothing: that reservation is not this one.
    expect(await repo.findReservations(store.db, projectId, [{ ...lookup(r), storageKey: `p/${projectId}/u/${randomUUID()}` }])).toEqual([undefined]);
    expect(await repo.findReservations(store.db, randomUUID(), [lookup(r)])).toEqual([undefined]);
  });

  it('finds a confirmed dedup version before a second reservation of the same content and number', async () => {
    const original = await reserve('blob.bin', 'b');
    await record(original, original.storageKey!);
    const [first, second] = [await reserve('copy.bin', 'b'), await reserve('copy.bin', 'b')];
    expect([first.dedup, second.dedup, first.version, second.version]).toEqual([true, true, 1, 1]);
    await record(first, original.storageKey!);
    expect(await repo.findReservations(store.db, projectId, [lookup(second)])).toEqual([
      expect.objectContaining({ id: first.uploadId, confirmed: true, dedup: true }),
    ]);
  });

  it('tells a reservation recorded by another confirm from one that is gone', async () => {
    const [recorded, collected] = [await reserve('r.bin', 'c'), await reserve('g.bin', 'd')];
    await record(recorded, recorded.storageKey!);
    await store.db.transaction((tx) => repo.deleteReservations(tx, [collected.uploadId]));
    const named = [recorded, collected].map((r) => ({ id: r.uploadId, fileId: r.file_id, version: r.version }));
    expect(
      await store.db.transaction((tx) =>
        repo.lockReservations(
          tx,
          named.map((n) => n.id),
        ),
      ),
    ).toEqual(new Set());
    expect(await repo.confirmedUploads(store.db, projectId, named)).toEqual(new Set([recorded.uploadId]));
    expect(await repo.confirmedUploads(store.db, randomUUID(), named)).toEqual(new Set());
  });
});

describe('FilesRepository.reserveBatch', () => {
  const store = uploadDatabase();
  const repo = new FilesRepository();
  const projectId = randomUUID();
  const uploaderId = randomUUID();

  const entry = (path: string) => ({
    path,
    pathKey: path.toLowerCase(),
    sha256: randomUUID().replaceAll('-', '').repeat(2),
    size: 10,
    contentMd5: 'bWQ1bWQ1bWQ1bWQ1bWQ1bQ==',
    uploadId: randomUUID(),
    storageKey: `p/${projectId}/u/${randomUUID()}`,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  const rowVersion = async (fileId: string) => (await store.db.query<{ xmin: string }>('SELECT xmin::text FROM files WHERE id = $1', [fileId])).rows[0].xmin;

  it('reserves the next version of an existing file by reading its row, not rewriting it', async () => {
    const [first] = await repo.reserveBatch(store.db, projectId, uploaderId, [entry('Mod.bin')]);
    await store.db.query('UPDATE files SET tip_version = 1 WHERE id = $1', [first.file_id]);
    const before = await rowVersion(first.file_id);
    const [again] = await repo.reserveBatch(store.db, projectId, uploaderId, [entry('Mod.bin')]);
    expect(again).toMatchObject({ file_id: first.file_id, version: 2, reserved: true });
    expect(await rowVersion(first.file_id)).toBe(before);
  });

  it('gives two batches that add one new path at once the same file, the second once the first commits', async () => {
    const other = new pg.Client({ connectionString: store.url });
    await other.connect();
    try {
      let second: Promise<Awaited<ReturnType<FilesRepository['reserveBatch']>>> | undefined;
      const first = await store.db.transaction(async (tx) => {
        const rows = await repo.reserveBatch(tx, projectId, uploaderId, [entry('Race.bin')]);
        second = repo.reserveBatch(store.db, projectId, uploaderId, [entry('Race.bin')]);
        // The second insert waits on the first's uncommitted row: commit only once it does (in this
        // test's database: other tests' backends wait on locks of their own). The test's timeout bounds it.
        for (;;) {
          const { rows: waiting } = await other.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO files%'`,
          );
          if (waiting.length > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return rows;
      });
      const [raced] = await (second as NonNullable<typeof second>);
      expect(raced).toMatchObject({ file_id: first[0].file_id, version: 1, reserved: true });
    } finally {
      await other.end();
    }
  });
});
