import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from './database.ts';

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;
const LIBRARY_NAME = /^[a-z][a-z0-9_-]*$/;

/**
 * A table a library owns (libs/outbox's `outbox`, say) and services include in their own schema:
 * its plain-SQL files, recorded in each schema's history as `<name>/<NNNN>` beside the service's own.
 */
export interface LibraryMigrations {
  name: string;
  directory: string;
}

/** A schema's migrations: the service's own directory, then the libraries' tables it includes, in order. */
export interface SchemaMigrations {
  directory: string;
  libraries: readonly LibraryMigrations[];
}

/** A directory of the service's own files, or a schema that includes library tables. */
export type Migrations = string | SchemaMigrations;

export interface MigrationResult {
  applied: string[];
}

interface MigrationFile {
  /** As recorded in schema_migrations: `0003`, or `outbox/0001` for a library's. */
  version: string;
  name: string;
  file: string;
}

/**
 * Applies a schema's plain-SQL migrations, in order, each in its own transaction: the service's own
 * files, then each included library's. The history lives in the service's own schema; a session
 * advisory lock keyed by the schema makes replicas that start together take turns, and a changed
 * checksum of an applied file stops the start.
 */
export async function migrate(db: Database, migrations: Migrations): Promise<MigrationResult> {
  const files = await listFiles(typeof migrations === 'string' ? { directory: migrations, libraries: [] } : migrations);
  const schema = db.schema;
  const applied: string[] = [];
  const { client, release } = await db.checkout();
  try {
    // A migration (an index over a large table) or the wait for another replica's may take longer
    // than the pool's statement and idle limits allow a request (timeouts.ts).
    await client.query('SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0');
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`lode.migrate.${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string; checksum: string }>(`SELECT version, checksum FROM ${quoteIdent(schema)}.schema_migrations`);
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    for (const { version, name, file } of files) {
      const sql = await readFile(file, 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(version);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`Migration ${schema}/${name} changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
        await client.query(sql);
        await client.query(`INSERT INTO ${quoteIdent(schema)}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, [version, name, checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${schema}/${name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`lode.migrate.${schema}`]).catch(() => undefined);
    // Back to the pool's limits, or the connection is closed rather than handed out without them.
    const reset = await client.query('RESET statement_timeout; RESET idle_in_transaction_session_timeout').then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error('resetting the limits failed')),
    );
    release(reset);
  }
  return { applied };
}

async function listFiles({ directory, libraries }: SchemaMigrations): Promise<MigrationFile[]> {
  const own = await filesIn(directory, '');
  const included = await Promise.all(
    libraries.map((library) => {
      if (!LIBRARY_NAME.test(library.name)) throw new Error(`Invalid migration library name ${library.name}`);
      return filesIn(library.directory, `${library.name}/`);
    }),
  );
  return [...own, ...included.flat()];
}

async function filesIn(directory: string, prefix: string): Promise<MigrationFile[]> {
  const names = (await readdir(directory)).filter((f) => MIGRATION_FILE.test(f)).sort();
  return names.map((f) => ({ version: `${prefix}${f.slice(0, 4)}`, name: `${prefix}${f}`, file: path.join(directory, f) }));
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Invalid schema name ${name}`);
  return `"${name}"`;
}
