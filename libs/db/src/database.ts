import pg from 'pg';
import { observeGauges, withinTransaction } from '@lode/telemetry';
import { mapPgError } from './pg-errors.ts';
import { callTimeoutInTransaction, DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './timeouts.ts';

export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string | NamedStatement, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * A statement each connection prepares once under its name and then only executes: Postgres parses
 * and analyses it once per connection instead of at every call, and after a few executions may keep
 * one generic plan for all. For a hot statement whose parsing costs as much as its work (a small
 * commit's writes, a dozen CTEs); never for one whose best plan depends on its parameters (a list of
 * one or of 25,000 ids), which the generic plan ignores. Its text must be fixed, and its name unique
 * among the pool's statements.
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

export interface DatabaseOptions {
  connectionString: string;
  /** The service's own schema: the only one on its search_path. */
  schema: string;
  max?: number;
  applicationName?: string;
  /** Postgres's limits on every connection of the pool (timeouts.ts); the defaults unless given. */
  timeouts?: Partial<DatabaseTimeouts>;
}

/** A query's error, or 503 when the connection was lost under it (whatever error that caused). */
function mapFailure(error: unknown, lost: Error | undefined): unknown {
  return mapPgError(lost ? Object.assign(new Error('database connection lost'), { code: '08006' }) : error);
}

// bigint columns (sizes) come back as numbers: every size we store is below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** A pool bound to one schema. Every query error passes through mapPgError. */
export class Database implements Queryable {
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly #callTimeoutMs: number;
  readonly #unobserve: () => void;

  constructor(options: DatabaseOptions) {
    this.schema = options.schema;
    const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
    this.#callTimeoutMs = callTimeoutInTransaction(timeouts);
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 10,
      application_name: options.applicationName ?? `lode-${options.schema}`,
      // No JIT: every statement here is short, and a plan whose estimate crosses jit_above_cost
      // (stale statistics after a bulk load are enough) pays 100 ms and more to compile code for a
      // statement that runs in milliseconds.
      options: `-c search_path=${options.schema} -c jit=off`,
      // A statement or an idle transaction past its limit ends with an error the caller can retry
      // (503), instead of holding a connection and its locks until the pool is exhausted.
      statement_timeout: timeouts.statementTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    // Nor may a client between listeners: a backend terminated as its connection is handed out sends
    // its FATAL in the same read as the startup's last message, after the pool has dropped its idle
    // listener and before checkout() attaches its own (seen in the fault suite: the process died of
    // an unhandled 'error' event). Every client keeps this one for its whole life; the others still
    // hear the error and decide what it means.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.#unobserve = this.#observePool();
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: string | NamedStatement, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(statement, values);
    } catch (error) {
      throw mapPgError(error);
    }
  }

  /**
   * Runs fn in one transaction; a thrown error rolls it back and is mapped like any query error. A
   * connection lost meanwhile (a terminated backend, a failover, the idle-in-transaction timeout) is
   * 503 service_unavailable, and the broken client is destroyed rather than returned to the pool.
   * A bus call made inside fn gets a short deadline (timeouts.ts): no transaction should wait on
   * another service, and one that does must not wait long.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const { client, lost, release } = await this.checkout();
    try {
      await client.query('BEGIN');
      const result = await withinTransaction(this.#callTimeoutMs, () => fn(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw mapFailure(error, lost());
    } finally {
      release();
    }
  }

  /**
   * Runs fn on one connection of its own, outside any transaction: each statement commits on its
   * own. For a statement whose parameters are computed once a connection is at hand (a time left,
   * measured after any wait for the pool). Errors are mapped as a transaction's are.
   */
  async onConnection<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const { client, lost, release } = await this.checkout();
    try {
      return await fn(client);
    } catch (error) {
      throw mapFailure(error, lost());
    } finally {
      release();
    }
  }

  /**
   * A client of its own, with an 'error' listener for as long as it is checked out: pg-pool removes
   * its own on checkout, and a backend dying while the client waits on anything else would
   * otherwise emit an unhandled 'error' and end the process.
   */
  async checkout(): Promise<{ client: pg.PoolClient; lost: () => Error | undefined; release: (destroy?: Error) => void }> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw mapPgError(error);
    });
    let lostWith: Error | undefined;
    const onError = (error: Error) => (lostWith ??= error);
    client.on('error', onError);
    return {
      client,
      lost: () => lostWith,
      /** `destroy` closes the connection instead of returning it: it may hold session state (a lock). */
      release: (destroy?: Error) => {
        client.off('error', onError);
        client.release(lostWith ?? destroy);
      },
    };
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    this.#unobserve();
    await this.pool.end();
  }

  /** Pool saturation shows as used connections at the maximum and requests waiting for one. */
  #observePool(): () => void {
    const gauges = {
      connections: { name: 'db.client.connection.count', description: 'Connections in the pool, by state (used, idle)' },
      max: { name: 'db.client.connection.max', description: 'The most connections the pool opens' },
      pending: { name: 'db.client.connection.pending_requests', description: 'Queries waiting for a free connection' },
    };
    const pool = { 'db.client.connection.pool.name': this.schema };
    return observeGauges(gauges, (observe) => {
      observe('connections', this.pool.totalCount - this.pool.idleCount, { ...pool, 'db.client.connection.state': 'used' });
      observe('connections', this.pool.idleCount, { ...pool, 'db.client.connection.state': 'idle' });
      observe('max', this.pool.options.max, pool);
      observe('pending', this.pool.waitingCount, pool);
    });
  }
}
