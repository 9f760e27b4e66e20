import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrate } from '@lode/db';
import { outboxMigrations } from '@lode/outbox';
import { createTestDatabase, migrationsBefore, type OldMigrations, type TestDatabase } from '@lode/testkit/database';
import { COMMIT_SCHEMA, commitMigrations } from '../src/index.ts';
import { DraftsRepository } from '../src/repo/drafts-repo.ts';

describe('a draft’s stored file count (migration 0012)', () => {
  let database: TestDatabase;
  let before0012: OldMigrations;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: COMMIT_SCHEMA, max: 2 });
    before0012 = await migrationsBefore(commitMigrations.directory, '0012');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    await before0012?.remove();
  });

  it('counts the entries of drafts staged before it, and staging adds only the files new to the draft', async () => {
    await migrate(db, { directory: before0012.directory, libraries: [outboxMigrations] });
    const owner = { projectId: randomUUID(), userId: randomUUID() };
    const [staged, empty] = [randomUUID(), randomUUID()];
    await db.query(
      `INSERT INTO drafts (id, project_id, user_id, message, branch, expires_at)
       SELECT id, $2, $3, 'import', 'main', now() + interval '1 day' FROM unnest($1::uuid[]) AS id`,
      [[staged, empty], owner.projectId, owner.userId],
    );
    await db.query(
      `INSERT INTO draft_entries (draft_id, file_id, action, path, path_key)
       SELECT $1, gen_random_uuid(), 'delete', 'f/' || n, 'f/' || n FROM generate_series(1, 3) AS n`,
      [staged],
    );

    await migrate(db, commitMigrations);
    const drafts = new DraftsRepository();
    expect((await drafts.find(db, owner, staged))?.fileCount).toBe(3);
    expect((await drafts.find(db, owner, empty))?.fileCount).toBe(0);

    const entry = (fileId: string) => ({
      fileId,
      action: 'delete' as const,
      version: null,
      path: `g/${fileId}`,
      pathKey: `g/${fileId}`,
      versionId: null,
      sha256: null,
      size: null,
      storageKey: null,
      uploaderId: null,
      uploaderName: null,
      versionCreatedAt: null,
    });
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await db.transaction((tx) => drafts.stage(tx, empty, [entry(a), entry(b)]))).toBe(2);
    expect(await db.transaction((tx) => drafts.stage(tx, empty, [entry(b), entry(randomUUID())]))).toBe(3);
    expect((await drafts.find(db, owner, empty))?.fileCount).toBe(3);
  });
});
