import { chown, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDirectory, persistentSecret, PRIVATE_DIRECTORY } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { clusterExists, existingLayout, placeCluster } from './cluster-layout.ts';
import { forgetOwner, recordOwner, stopLeftoverPostmaster } from './leftover-postmaster.ts';
import { reachableBinaries } from './postgres-binaries.ts';
import { initialiseCluster, startPostmaster } from './postgres-process.ts';
import { postgresRunAs } from './postgres-user.ts';
import { DATABASE, grantServicesRole, SERVICES_ROLE, SUPERUSER } from './services-role.ts';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * The server listens on a Unix socket in a folder beside its cluster, and on no TCP port: a
 * TCP port on loopback is open to every local user, while only the user Postgres runs as (and root)
 * can enter that folder, so no other local process can reach the database, whatever it knows or
 * guesses of a password. Passwords are still asked on the socket (initdb's pg_hba.conf), generated
 * per data directory. The socket's name carries a port number, which need not be free on the machine.
 */
const SOCKET_PORT = 5432;
/** sun_path less its terminating NUL: Postgres refuses a longer socket path, and so does Node. */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;
/** Generated once and kept in the data directory (0600) beside the other secrets. */
const SUPERUSER_PASSWORD_FILE = 'postgres-superuser-password';
const SERVICES_PASSWORD_FILE = 'postgres-password';

/**
 * A real PostgreSQL (binaries from npm) for the data directory, so `npm start` needs nothing
 * installed. Initialised on first start, reused afterwards; one left running by a
 * killed Lode is stopped first (leftover-postmaster.ts). Every step from the secrets to the role is
 * safe to repeat, so a first start that failed or was killed anywhere is completed by the next. The
 * URL it resolves with connects as the services' role, never as the superuser (services-role.ts).
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<RunningPostgres> {
  checkSocketPath((await existingLayout(dataDir)).socketDir);
  const runAs = await postgresRunAs();
  const { databaseDir, socketDir } = await placeCluster(dataDir, runAs, logger);
  const superuserPassword = (await persistentSecret(dataDir, SUPERUSER_PASSWORD_FILE)).value;
  const servicesPassword = (await persistentSecret(dataDir, SERVICES_PASSWORD_FILE)).value;
  const binaries = await reachableBinaries(runAs, logger);
  if (!clusterExists(databaseDir)) await initialiseCluster(binaries, databaseDir, { name: SUPERUSER, password: superuserPassword }, runAs);
  else await stopLeftoverPostmaster(dataDir, databaseDir, logger);
  await ensureSocketDirectory(socketDir, databaseDir);
  const postmaster = await startPostmaster(
    binaries,
    databaseDir,
    ['-p', String(SOCKET_PORT), '-c', 'listen_addresses=', '-c', `unix_socket_directories=${quoteListItem(socketDir)}`, '-c', 'unix_socket_permissions=0700'],
    runAs,
  );
  await recordOwner(dataDir);
  try {
    await grantServicesRole({ host: socketDir, port: SOCKET_PORT, password: superuserPassword }, servicesPassword);
  } catch (error) {
    await postmaster.stop();
    await forgetOwner(dataDir);
    throw error;
  }
  return {
    url: servicesUrl(socketDir, servicesPassword),
    stop: async () => {
      await postmaster.stop();
      await forgetOwner(dataDir);
    },
  };
}

/** The services' connection to the embedded Postgres of `dataDir` (one that has started once), for tools beside it. */
export async function embeddedDatabaseUrl(dataDir: string): Promise<string> {
  const password = (await readFile(path.join(dataDir, SERVICES_PASSWORD_FILE), 'utf8')).trim();
  return servicesUrl((await existingLayout(dataDir)).socketDir, password);
}

/** node-postgres and libpq alike take a host that is a percent-encoded absolute path for the socket's folder. */
function servicesUrl(socketDir: string, password: string): string {
  return `postgres://${SERVICES_ROLE}:${encodeURIComponent(password)}@${encodeURIComponent(socketDir)}:${SOCKET_PORT}/${DATABASE}`;
}

function checkSocketPath(socketDir: string): void {
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `LODE_DATA_DIR is too long for the embedded Postgres's socket (${socketPath} is over ${MAX_SOCKET_PATH_BYTES} bytes): choose a shorter path`,
    );
  }
}

/**
 * The socket's folder: mode 0700, owned by the user Postgres runs as, which is the owner of its
 * database directory (as root, the `postgres` OS user; Postgres refuses any other).
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
