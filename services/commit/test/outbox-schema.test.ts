import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrate, type Queryable } from '@lode/db';
import { outboxMigrations, writeOutbox } from '@lode/outbox';
import { createTestDatabase, type TestDatabase } from '@lode/testkit/database';
import { COMMIT_SCHEMA, commitMigrations } from '../src/index.ts';

/** The table as Postgres describes it, with the schema's name taken out so two schemas compare. */
async function describeOutbox(db: Database): Promise<unknown> {
  const { rows: columns } = await db.query(
    `SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, a.attstorage, pg_get_expr(d.adbin, d.adrelid) AS default
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = 'outbox'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
  );
  const { rows: indexes } = await db.query<{ indexdef: string }>(
    'SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
    [db.schema, 'outbox'],
  );
  return { columns, indexes: indexes.map((i) => i.indexdef.replaceAll(`${db.schema}.`, '')) };
}

const count = async (q: Queryable, sql: string) => (await q.query<{ n: number }>(sql)).rows[0].n;

describe("the commit schema's outbox is libs/outbox's table", () => {
  let database: TestDatabase;
  let emptyDirectory: string;
  const pools: Database[] = [];
  const open = (schema: string) => {
    const db = new Database({ connectionString: database.url, schema, max: 2 });
    pools.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    emptyDirectory = await mkdtemp(path.join(tmpdir(), 'lode-no-migrations-'));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await database?.drop();
    await rm(emptyDirectory, { recursive: true, force: true });
  });

  it('upgrades a commit schema made before the library owned the table, keeping its events', async () => {
    const db = open(COMMIT_SCHEMA);
    // A deployed schema: the commit service's own files only, as every start applied them until now.
    await migrate(db, commitMigrations.directory);
    await db.transaction((tx) => writeOutbox(tx, [{ subject: 'test.event', id: 'kept-1', data: { n: 1 } }]));

    expect((await migrate(db, commitMigrations)).applied).toEqual(['outbox/0001_outbox.sql']);
    expect((await migrate(db, commitMigrations)).applied).toEqual([]);
    expect(await count(db, "SELECT count(*)::int AS n FROM outbox WHERE event_id = 'kept-1' AND published_at IS NULL")).toBe(1);
    expect(await count(db, "SELECT count(*)::int AS n FROM schema_migrations WHERE version = 'outbox/0001'")).toBe(1);
  });

  it('makes a fresh commit schema whose outbox is the one the library makes anywhere', async () => {
    const fresh = open('fresh_commits');
    // The service's own files, every one, then the library's: its table comes from the library only.
    const own = (await readdir(commitMigrations.directory)).filter((name) => name.endsWith('.sql')).sort();
    expect(own).toContain('0002_outbox_uncompressed.sql');
    expect((await migrate(fresh, commitMigrations)).applied).toEqual([...own, 'outbox/0001_outbox.sql']);
    const libraryOnly = open('outbox_only');
    await migrate(libraryOnly, { directory: emptyDirectory, libraries: [outboxMigrations] });

    const expected = await describeOutbox(libraryOnly);
    expect(expected).toMatchObject({ columns: expect.arrayContaining([expect.objectContaining({ attname: 'payload', attstorage: 'e' })]) });
    expect(await describeOutbox(fresh)).toEqual(expected);
    expect(await describeOutbox(open(COMMIT_SCHEMA))).toEqual(expected);
  });

  it('keeps each payload as written, in order, whatever its text: quotes, backslashes, commas, control characters, any script', async () => {
    const db = open('payloads');
    await migrate(db, { directory: emptyDirectory, libraries: [outboxMigrations] });
    const awkward = ['say "hi", \\ then \\"', 'a,b,,c', 'line\nbreak\ttab\u001fseparator\u0000nul', 'Café 東京 🎮', '', ' '.repeat(600_000)];
    const events = awkward.map((text, n) => ({ subject: 'test.payload', id: `p-${n}`, data: { n, text, nested: { list: [text, n] } } }));
    await db.transaction((tx) => writeOutbox(tx, events));
    const { rows } = await db.query<{ event_id: string; payload: string }>('SELECT event_id, payload FROM outbox ORDER BY id');
    expect(rows.map((r) => r.event_id)).toEqual(events.map((e) => e.id));
    expect(rows.map((r) => JSON.parse(r.payload))).toEqual(events.map((e) => e.data));
  });
});
