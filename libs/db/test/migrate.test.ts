import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { Database, migrate } from '../src/index.ts';

describe('migrations and error mapping on a real Postgres', () => {
  let database: TestDatabase;
  let dir: string;
  const pools: Database[] = [];
  const open = (schema: string) => {
    const db = new Database({ connectionString: database.url, schema, max: 2 });
    pools.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'lode-migrations-'));
    await writeFile(path.join(dir, '0001_init.sql'), 'CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL);');
    await writeFile(path.join(dir, '0002_more.sql'), 'ALTER TABLE things ADD COLUMN note text;');
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies each migration exactly once when several replicas start together', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => migrate(open('racing'), dir)));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(['0001_init.sql', '0002_more.sql']);
    const { rows } = await open('racing').query('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(['0001', '0002']);
  });

  it('keeps each schema its own history', async () => {
    expect((await migrate(open('other_service'), dir)).applied).toHaveLength(2);
  });

  it('refuses to start when an applied migration was edited', async () => {
    const edited = await mkdtemp(path.join(tmpdir(), 'lode-migrations-'));
    await writeFile(path.join(edited, '0001_init.sql'), 'CREATE TABLE things (id int PRIMARY KEY);');
    await expect(migrate(open('racing'), edited)).rejects.toThrow(/changed after it was applied/);
    await rm(edited, { recursive: true, force: true });
  });

  it("applies a library's included files after the service's own, recorded under the library's name", async () => {
    const library = await mkdtemp(path.join(tmpdir(), 'lode-library-migrations-'));
    await writeFile(path.join(library, '0001_table.sql'), 'CREATE TABLE IF NOT EXISTS shared (id int PRIMARY KEY, thing int REFERENCES things (id));');
    try {
      const migrations = { directory: dir, libraries: [{ name: 'shared', directory: library }] };
      expect((await migrate(open('with_library'), migrations)).applied).toEqual(['0001_init.sql', '0002_more.sql', 'shared/0001_table.sql']);
      // A schema that already had the service's files gains only the library's.
      expect((await migrate(open('other_service'), migrations)).applied).toEqual(['shared/0001_table.sql']);
      expect((await migrate(open('other_service'), migrations)).applied).toEqual([]);
      const { rows } = await open('other_service').query('SELECT version, name FROM schema_migrations ORDER BY version');
      expect(rows).toEqual([
        { version: '0001', name: '0001_init.sql' },
        { version: '0002', name: '0002_more.sql' },
        { version: 'shared/0001', name: 'shared/0001_table.sql' },
      ]);
      await writeFile(path.join(library, '0001_table.sql'), 'CREATE TABLE IF NOT EXISTS shared (id int PRIMARY KEY);');
      await expect(migrate(open('other_service'), migrations)).rejects.toThrow(/other_service\/shared\/0001_table.sql changed after it was applied/);
    } finally {
      await rm(library, { recursive: true, force: true });
    }
  });

  it('maps SQLSTATEs to domain errors in one place', async () => {
    const db = open('racing');
    await db.query("INSERT INTO things (id, name) VALUES (1, 'a')");
    const duplicate = await db.query("INSERT INTO things (id, name) VALUES (1, 'b')").catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(AppError);
    expect(duplicate).toMatchObject({ code: 'conflict', details: { constraint: 'things_pkey' } });
    const malformed = await db.query('SELECT $1::uuid', ['not-a-uuid']).catch((e: unknown) => e);
    expect(malformed).toMatchObject({ code: 'validation_failed' });
    const rolledBack = await db
      .transaction(async (tx) => {
        await tx.query("INSERT INTO things (id, name) VALUES (2, 'c')");
        await tx.query("INSERT INTO things (id, name) VALUES (1, 'dup')");
      })
      .catch((e: unknown) => e);
    expect(rolledBack).toMatchObject({ code: 'conflict' });
    expect((await db.query('SELECT 1 FROM things WHERE id = 2')).rowCount).toBe(0);
  });
});
