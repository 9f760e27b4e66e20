import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from './database.ts';

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface MigrationResult {
  applied: string[];
}

/**
 * Applies a service's plain-SQL migrations, in order, each in its own transaction. The history lives
 * in the service's own schema; a session advisory lock keyed by the schema makes replicas
 * that start together take turns, and a changed checksum of an applied file stops the start.
 */
export async function migrate(db: Database, directory: string): Promise<MigrationResult> {
  const files = (await readdir(directory)).filter((f) => MIGRATION_FILE.test(f)).sort();
  const schema = db.schema;
  const applied: string[] = [];
  const client = await db.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`lode.migrate.${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string; checksum: string }>(
      `SELECT version, checksum FROM ${quoteIdent(schema)}.schema_migrations`,
    );
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    for (const file of files) {
      const version = file.slice(0, 4);
      const sql = await readFile(path.join(directory, file), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(version);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`Migration ${schema}/${file} changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
        await client.query(sql);
        await client.query(
          `INSERT INTO ${quoteIdent(schema)}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`,
          [version, file, checksum],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${schema}/${file} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`lode.migrate.${schema}`]).catch(() => undefined);
    client.release();
  }
  return { applied };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Invalid schema name ${name}`);
  return `"${name}"`;
}
