import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, keepOutput, recordSecret, REPO_ROOT, waitForReady } from '@lode/testkit';

/**
 * `npm start` as an operator runs it, as real processes: npm, the embedded Lode under it and the
 * Postgres under that. What must hold: a SIGTERM to npm stops all three, and a Lode killed before
 * its shutdown leaves a Postgres that the next start stops by itself, losing no data.
 */

const START_TIMEOUT_MS = 120_000;

interface Started {
  npm: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  baseUrl: string;
}

/** Whether the process runs: a zombie (exited, not yet reaped by whoever adopted it) does not. */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

describe('npm start', () => {
  let dataDir: string;
  let env: Record<string, string>;
  const launched: Started[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lode-start-'));
    // As an earlier version left it: readable by every local user. Lode tightens it at start.
    await chmod(dataDir, 0o755);
    const [port, opsPort] = [await freePort(), await freePort()];
    env = { PORT: String(port), LODE_OPS_PORT: String(opsPort), LODE_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    for (const lode of launched) if (lode.npm.exitCode === null && lode.npm.signalCode === null) lode.npm.kill('SIGTERM');
    await Promise.all(launched.map((lode) => lode.exited));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  function start(overrides: Record<string, string> = {}): Started {
    const childEnv = { ...process.env, ...env, ...overrides };
    const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    keepOutput('npm start', npm);
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const lode = { npm, exited, output: () => output, baseUrl: `http://127.0.0.1:${childEnv.PORT}` };
    launched.push(lode);
    return lode;
  }

  async function started(lode: Started): Promise<void> {
    await Promise.race([
      waitForReady(lode.baseUrl, START_TIMEOUT_MS),
      lode.exited.then(() => Promise.reject(new Error(`npm start exited on its way up:\n${lode.output()}`))),
    ]);
  }

  /** The Node process npm runs the script in (the script execs node, so it is npm's only child). */
  async function lodePid(lode: Started): Promise<number> {
    const { stdout } = await promisify(execFile)('pgrep', ['-P', String(lode.npm.pid)]);
    const pids = stdout.trim().split('\n').map(Number);
    expect(pids).toHaveLength(1);
    return pids[0];
  }

  const lockFile = () => path.join(dataDir, 'postgres', 'postmaster.pid');
  const postmasterPid = async () => Number((await readFile(lockFile(), 'utf8')).split('\n', 1)[0]);

  async function admin(baseUrl: string, method: 'GET' | 'POST', route: string, body?: unknown) {
    const token = (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    const response = await fetch(baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as { id?: string; data?: { slug: string }[] } };
  }

  it('stops npm, Node and Postgres on a SIGTERM to npm, after draining', { timeout: 3 * START_TIMEOUT_MS }, async () => {
    const lode = start();
    await started(lode);
    expect(await admin(lode.baseUrl, 'POST', '/admin/v1/orgs', { name: 'Kept', slug: 'kept' })).toMatchObject({ status: 201 });
    // Secrets and blobs are Lode's user's only; run as root, its Postgres's user may pass through the data directory, never list it.
    const modeOf = async (name: string) => (await stat(path.join(dataDir, name))).mode & 0o777;
    expect(await modeOf('.')).toBe(process.getuid?.() === 0 ? 0o711 : 0o700);
    for (const secret of ['admin-token', 'storage-secret', 'cursor-secret', 'postgres-password', 'postgres-superuser-password']) {
      expect(await modeOf(secret), secret).toBe(0o600);
      recordSecret(secret, (await readFile(path.join(dataDir, secret), 'utf8')).trim());
    }
    expect(await modeOf('blobs')).toBe(0o700);
    expect(await modeOf('postgres-socket')).toBe(0o700);
    // The access line, as the real logger writes it: one request_id (the logger's own and the line's merge).
    await expect
      .poll(() =>
        lode
          .output()
          .split('\n')
          .filter((line) => line.includes('"route":"/admin/v1/orgs"')),
      )
      .toHaveLength(1);
    const access =
      lode
        .output()
        .split('\n')
        .find((line) => line.includes('"route":"/admin/v1/orgs"')) ?? '';
    expect(access.match(/"request_id"/g)).toHaveLength(1);
    expect(JSON.parse(access)).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'POST' }, res: { statusCode: 201 } });
    // Its output goes to a pipe here, as to a log collector: the admin token must not be in it.
    expect(lode.output()).not.toContain(await readFile(path.join(dataDir, 'admin-token'), 'utf8').then((token) => token.trim()));
    const node = await lodePid(lode);
    const postgres = await postmasterPid();

    lode.npm.kill('SIGTERM');
    expect(await lode.exited).toEqual({ code: 0, signal: null });
    expect(lode.output()).toContain('"msg":"stopped"');
    expect(await running(node)).toBe(false);
    expect(await running(postgres)).toBe(false);
    expect(existsSync(lockFile())).toBe(false);
  });

  it('after Node is SIGKILLed, the next start stops the leftover Postgres and keeps the data', { timeout: 3 * START_TIMEOUT_MS }, async () => {
    const killed = start();
    await started(killed);
    const leftover = await postmasterPid();
    process.kill(await lodePid(killed), 'SIGKILL');
    await killed.exited;
    expect(await running(leftover)).toBe(true);

    const next = start();
    await started(next);
    expect(next.output()).toContain('a previous Lode left running');
    expect(await running(leftover)).toBe(false);
    expect(await postmasterPid()).not.toBe(leftover);
    const orgs = await admin(next.baseUrl, 'GET', '/admin/v1/orgs');
    expect(orgs.body.data?.map((org) => org.slug)).toEqual(['kept']);

    // A second Lode on the same data directory must not take the running one's Postgres away.
    const second = start({ PORT: String(await freePort()), LODE_OPS_PORT: String(await freePort()) });
    expect((await second.exited).code).not.toBe(0);
    expect(second.output()).toContain('Another Lode');
    expect((await fetch(`${next.baseUrl}/readyz`)).status).toBe(200);

    next.npm.kill('SIGTERM');
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(lockFile())).toBe(false);
  });
});
