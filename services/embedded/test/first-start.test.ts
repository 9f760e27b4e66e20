import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@lode/telemetry';
import { freePorts, REPO_ROOT, waitForReady } from '@lode/testkit';
import { startEmbeddedPostgres } from '../src/embedded-postgres.ts';

/**
 * A new team's first hour: a first start that dies on the way (killed during initdb, or once the
 * cluster exists but before Lode's database does) leaves a data directory the next start completes;
 * two Lodes run side by side given only their own PORT and LODE_DATA_DIR; a taken port is one line
 * naming its variable; and, as root, a data directory the Postgres user cannot enter still starts.
 */

const START_TIMEOUT_MS = 120_000;
const logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
const asRoot = process.getuid?.() === 0;

interface Lode {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: () => string;
  stderr: () => string;
  baseUrl: string;
}

const launched: Lode[] = [];
const folders: string[] = [];

afterAll(async () => {
  for (const lode of launched) if (lode.child.exitCode === null && lode.child.signalCode === null) lode.child.kill('SIGTERM');
  await Promise.all(launched.map((lode) => lode.exited));
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function newDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-first-'));
  folders.push(dataDir);
  return dataDir;
}

/**
 * The embedded process as `npm start` runs it, in a process group of its own (so a crash can take
 * all of it at once). A variable given as undefined is unset, whatever this process has.
 */
function launch(env: Record<string, string | undefined>): Lode {
  const childEnv = Object.fromEntries(Object.entries({ ...process.env, LOG_LEVEL: 'info', ...env }).filter(([, value]) => value !== undefined));
  const child = spawn(process.execPath, ['--import', './libs/telemetry/src/register.ts', 'services/embedded/src/main.ts'], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lode = { child, exited, stdout: () => stdout, stderr: () => stderr, baseUrl: `http://127.0.0.1:${env.PORT ?? 8080}` };
  launched.push(lode);
  return lode;
}

async function started(lode: Lode): Promise<void> {
  await Promise.race([
    waitForReady(lode.baseUrl, START_TIMEOUT_MS),
    lode.exited.then(() => Promise.reject(new Error(`Lode exited on its way up:\n${lode.stdout()}\n${lode.stderr()}`))),
  ]);
}

async function stopped(lode: Lode): Promise<void> {
  lode.child.kill('SIGTERM');
  expect(await lode.exited).toEqual({ code: 0, signal: null });
}

/**
 * Kills the whole process group (Node, and initdb or Postgres under it) the moment `when` holds, as
 * a crash or the OOM killer would. The group is frozen first, so that what runs at that moment
 * (`running`, a program's name) is checked: a crash that came too late would prove nothing.
 */
async function crashWhen(lode: Lode, when: () => Promise<boolean>, running: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await when())) {
    if (lode.child.exitCode !== null || Date.now() > deadline) throw new Error(`the moment to crash never came:\n${lode.stdout()}\n${lode.stderr()}`);
    await sleep(5);
  }
  const group = lode.child.pid ?? 0;
  process.kill(-group, 'SIGSTOP');
  const { stdout } = await promisify(execFile)('ps', ['-o', 'comm=', '-g', String(group)]);
  process.kill(-group, 'SIGKILL');
  await lode.exited;
  expect(stdout.split('\n'), 'running when killed').toContain(running);
}

/** Folders of the data directory in which initdb has begun writing a cluster (wherever it writes it). */
async function initdbHasBegun(dataDir: string): Promise<boolean> {
  const entries = await readdir(dataDir).catch(() => []);
  return entries.some((entry) => entry.startsWith('postgres') && existsSync(path.join(dataDir, entry, 'PG_VERSION')));
}

async function admin(lode: Lode, dataDir: string, method: 'GET' | 'POST', route: string, body?: unknown) {
  const token = (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
  const response = await fetch(lode.baseUrl + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as { data?: { slug: string }[] } };
}

describe('a first start', () => {
  it('killed during initdb, then once Postgres runs, leaves a data directory the next start completes', { timeout: 4 * START_TIMEOUT_MS }, async () => {
    const dataDir = await newDataDir();
    const [port, opsPort] = await freePorts(2);
    const env = { PORT: String(port), LODE_OPS_PORT: String(opsPort), LODE_DATA_DIR: dataDir };

    await crashWhen(launch(env), () => initdbHasBegun(dataDir), 'initdb');
    // Killed after the cluster was made and its server started, before Lode's role and database existed.
    await crashWhen(launch(env), async () => existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'postgres');

    const lode = launch(env);
    await started(lode);
    expect(await admin(lode, dataDir, 'POST', '/admin/v1/orgs', { name: 'After', slug: 'after' })).toMatchObject({ status: 201 });
    expect((await admin(lode, dataDir, 'GET', '/admin/v1/orgs')).body.data?.map((org) => org.slug)).toEqual(['after']);
    // Nothing of the killed attempts is left beside the cluster.
    expect((await readdir(dataDir)).filter((entry) => entry.startsWith('postgres.'))).toEqual([]);
    await stopped(lode);
  });
});

describe('two Lodes on one machine', () => {
  it('start side by side given only their own PORT and LODE_DATA_DIR; a taken PORT is refused in one line', { timeout: 3 * START_TIMEOUT_MS }, async () => {
    const [firstPort, secondPort] = await freePorts(2);
    const first = launch({ PORT: String(firstPort), LODE_DATA_DIR: await newDataDir(), LODE_OPS_PORT: undefined });
    const second = launch({ PORT: String(secondPort), LODE_DATA_DIR: await newDataDir(), LODE_OPS_PORT: undefined });
    await Promise.all([started(first), started(second)]);
    const opsPortOf = (lode: Lode) => {
      const line = lode
        .stdout()
        .split('\n')
        .find((entry) => entry.includes('Lode listening on'));
      return (JSON.parse(line ?? '{}') as { opsPort?: number }).opsPort;
    };
    expect(opsPortOf(first)).not.toBe(opsPortOf(second));
    for (const lode of [first, second]) expect((await fetch(`http://127.0.0.1:${opsPortOf(lode)}/healthz`)).status).toBe(200);

    const third = launch({ PORT: String(firstPort), LODE_DATA_DIR: await newDataDir(), LODE_OPS_PORT: undefined });
    expect((await third.exited).code).toBe(1);
    expect(third.stderr()).toBe(`Lode cannot start: port ${firstPort} (PORT) is in use by another program. Set PORT to a free port.\n`);
    expect(third.stdout()).not.toContain('"level":60');
    await Promise.all([stopped(first), stopped(second)]);
  });
});

describe.runIf(asRoot)('as root, a data directory the Postgres user cannot enter', () => {
  it('keeps its cluster in a root-owned folder the Postgres user can reach, linked from the data directory', { timeout: START_TIMEOUT_MS }, async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'lode-home-'));
    folders.push(home);
    await chmod(home, 0o700);
    const dataDir = path.join(home, 'data');
    await mkdir(dataDir, { mode: 0o711 });

    let running = await startEmbeddedPostgres(dataDir, logger);
    const databaseDir = await readlink(path.join(dataDir, 'postgres'));
    folders.push(path.dirname(databaseDir));
    expect(databaseDir).toMatch(/^\/var\/lib\/lode\/[0-9a-f]{16}\/postgres$/);
    expect((await stat('/var/lib/lode')).mode & 0o777).toBe(0o711);
    const cluster = await stat(databaseDir);
    expect(cluster.uid).not.toBe(0);
    expect(cluster.mode & 0o777).toBe(0o700);
    // The operator's own folder is left as it was.
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    const query = async (url: string, sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as unknown[];
      } finally {
        await client.end();
      }
    };
    await query(running.url, 'CREATE TABLE kept (id int); INSERT INTO kept VALUES (1)');
    await running.stop();

    running = await startEmbeddedPostgres(dataDir, logger);
    try {
      expect(await query(running.url, 'SELECT id FROM kept')).toEqual([{ id: 1 }]);
      expect(await readlink(path.join(dataDir, 'postgres'))).toBe(databaseDir);
    } finally {
      await running.stop();
    }
  });
});
