import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrate } from '@lode/db';
import { createTestDatabase, migrationsBefore, type OldMigrations, type TestDatabase } from '@lode/testkit/database';
import { LOCK_SCHEMA, lockMigrations } from '../src/index.ts';

describe('migrating fences to one row per fence', () => {
  let database: TestDatabase;
  let db: Database;
  let firstOnly: OldMigrations;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: LOCK_SCHEMA, max: 2 });
    firstOnly = await migrationsBefore(lockMigrations.directory, '0002');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    await firstOnly?.remove();
  });

  it('carries a commit’s fence in place during the upgrade over, with all its files and its expiry', async () => {
    await migrate(db, firstOnly.directory);
    const [fenceId, projectId, userId] = [randomUUID(), randomUUID(), randomUUID()];
    const files = [randomUUID(), randomUUID()];
    await db.query(
      `INSERT INTO fences (fence_id, project_id, file_id, user_id, user_name, expires_at)
       SELECT $1, $2, f, $3, 'Alice', now() + interval '1 minute' FROM unnest($4::uuid[]) AS f`,
      [fenceId, projectId, userId, files],
    );
    await migrate(db, lockMigrations);
    const { rows } = await db.query<{ fence_id: string; user_name: string; file_ids: string[]; live: boolean }>(
      'SELECT fence_id, user_name, file_ids, expires_at > now() AS live FROM fences',
    );
    expect(rows).toEqual([{ fence_id: fenceId, user_name: 'Alice', file_ids: expect.arrayContaining(files), live: true }]);
    expect(rows[0].file_ids).toHaveLength(2);
  });
});
