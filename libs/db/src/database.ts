import pg from 'pg';
import { mapPgError } from './pg-errors.ts';

export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface DatabaseOptions {
  connectionString: string;
  /** The service's own schema: the only one on its search_path. */
  schema: string;
  max?: number;
  applicationName?: string;
}

// bigint columns (sizes) come back as numbers: every size we store is below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** A pool bound to one schema. Every query error passes through mapPgError. */
export class Database implements Queryable {
  readonly pool: pg.Pool;
  readonly schema: string;

  constructor(options: DatabaseOptions) {
    this.schema = options.schema;
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 10,
      application_name: options.applicationName ?? `lode-${options.schema}`,
      options: `-c search_path=${options.schema}`,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw mapPgError(error);
    }
  }

  /** Runs fn in one transaction; a thrown error rolls it back and is mapped like any query error. */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw mapPgError(error);
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
