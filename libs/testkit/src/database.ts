import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Database, migrate, type Migrations } from '@lode/db';

/** The machine's real Postgres; each test run gets a database of its own and drops it after. */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = uniqueName('lode_test');
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A copy of a service's migration directory as deployed before `first` (e.g. '0012'): to test that migration on old data. */
export interface OldMigrations {
  directory: string;
  remove(): Promise<void>;
}

export async function migrationsBefore(directory: string, first: string): Promise<OldMigrations> {
  const old = await mkdtemp(path.join(tmpdir(), 'lode-migrations-'));
  for (const file of await readdir(directory)) {
    if (file < first) await copyFile(path.join(directory, file), path.join(old, file));
  }
  return { directory: old, remove: () => rm(old, { recursive: true, force: true }) };
}

/** A fresh database with one service's schema migrated: `db` works in that schema; `drop` closes it and drops the database. */
export interface SchemaDatabase {
  db: Database;
  drop(): Promise<void>;
}

export async function schemaDatabase(schema: string, migrations: Migrations): Promise<SchemaDatabase> {
  const database = await createTestDatabase();
  const db = new Database({ connectionString: database.url, schema, max: 2 });
  await migrate(db, migrations);
  return {
    db,
    async drop() {
      await db.close();
      await database.drop();
    },
  };
}
