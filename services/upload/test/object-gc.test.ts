import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { BlobStorage } from '@lode/storage';
import { testLogger } from '@lode/testkit';
import { UPLOAD_SCHEMA } from '@lode/upload';
import { CollectableRepository } from '../src/repo/collectable-repo.ts';
import { ObjectCollector } from '../src/domain/object-gc.ts';
import { uploadDatabase } from './upload-database.ts';

/** A store that only records what the collector deletes. */
function recordingStorage(): { storage: BlobStorage; deleted: string[] } {
  const deleted: string[] = [];
  const storage = { delete: async (keys: readonly string[]) => void deleted.push(...keys) } as unknown as BlobStorage;
  return { storage, deleted };
}

describe('the object collector at the SQL level', () => {
  const store = uploadDatabase();
  const collectable = new CollectableRepository();
  const projectId = randomUUID();
  const sha = (n: number) => n.toString(16).padStart(64, '0');

  /** A blob of the project's content store, marked for collection (as an obliteration leaves it). */
  async function markedBlob(n: number, options: { reserved?: boolean } = {}): Promise<string> {
    const key = `p/${projectId}/u/${randomUUID()}`;
    await store.db.query('INSERT INTO blobs (project_id, sha256, size, storage_key) VALUES ($1, $2, 10, $3)', [projectId, sha(n), key]);
    await store.db.transaction((tx) => collectable.mark(tx, [{ storageKey: key, projectId, sha256: sha(n), size: 10 }]));
    if (options.reserved) {
      await store.db.query(
        `INSERT INTO uploads (id, project_id, file_id, version, storage_key, sha256, size, content_md5, dedup, uploader_id, expires_at)
         VALUES ($1, $2, $3, 1, $4, $5, 10, '', true, $6, now() + interval '1 hour')`,
        [randomUUID(), projectId, randomUUID(), key, sha(n), randomUUID()],
      );
    }
    return key;
  }

  it('ends a run whose batches are full of marks it must leave, and sweeps the rest', async () => {
    const reserved = await Promise.all([1, 2, 3, 4, 5].map((n) => markedBlob(n, { reserved: true })));
    const free = await Promise.all([6, 7, 8].map((n) => markedBlob(n)));
    const { storage, deleted } = recordingStorage();
    const collector = new ObjectCollector({ db: store.db, collectable, storage, logger: testLogger('gc') }, { graceMs: 0, batchSize: 2 });
    const run = await collector.runOnce(Date.now() + 1000);
    expect(run).toEqual({ kept: 0, swept: 3, deleted: 3, freedBytes: 30 });
    expect(deleted.sort()).toEqual([...free].sort());
    const { rows } = await store.db.query<{ storage_key: string }>('SELECT storage_key FROM blobs WHERE project_id = $1', [projectId]);
    expect(rows.map((r) => r.storage_key).sort()).toEqual([...reserved].sort());
  });

  it('skips a blob a dedup confirm holds FOR SHARE, without waiting for it, and sweeps it once free', async () => {
    const key = await markedBlob(20);
    const confirm = new pg.Client({ connectionString: store.url });
    await confirm.connect();
    try {
      await confirm.query('BEGIN');
      await confirm.query(`SELECT 1 FROM ${UPLOAD_SCHEMA}.blobs WHERE storage_key = $1 FOR SHARE`, [key]);
      const { storage, deleted } = recordingStorage();
      const collector = new ObjectCollector({ db: store.db, collectable, storage, logger: testLogger('gc') }, { graceMs: 0 });
      expect(await collector.runOnce(Date.now() + 1000)).toMatchObject({ swept: 0, deleted: 0 });
      await confirm.query('ROLLBACK');
      expect(await collector.runOnce(Date.now() + 1000)).toMatchObject({ swept: 1, deleted: 1 });
      expect(deleted).toEqual([key]);
    } finally {
      await confirm.end();
    }
  });

  it('deletes again the objects of a sweep whose storage call failed, on the next run', async () => {
    const key = await markedBlob(30);
    let failing = true;
    const deleted: string[] = [];
    const storage = {
      delete: async (keys: readonly string[]) => {
        if (failing) throw new Error('store down');
        deleted.push(...keys);
      },
    } as unknown as BlobStorage;
    const collector = new ObjectCollector({ db: store.db, collectable, storage, logger: testLogger('gc') }, { graceMs: 0 });
    await expect(collector.runOnce(Date.now() + 1000)).rejects.toThrow('store down');
    // Swept (gone from the content store and from usage), its deletion still owed.
    expect((await store.db.query('SELECT 1 FROM blobs WHERE storage_key = $1', [key])).rowCount).toBe(0);
    failing = false;
    expect(await collector.runOnce(Date.now() + 1000)).toMatchObject({ swept: 0, deleted: 1 });
    expect(deleted).toEqual([key]);
    expect((await store.db.query('SELECT 1 FROM collectable_objects WHERE storage_key = $1', [key])).rowCount).toBe(0);
  });
});
