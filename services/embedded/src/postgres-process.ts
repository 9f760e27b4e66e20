import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PostgresBinaries } from './postgres-binaries.ts';
import type { RunAs } from './postgres-user.ts';

/** Postgres's own last lines go into a failure's message (a socket it cannot create, a directory it cannot read). */
const LOG_TAIL_LINES = 20;
/** Untranslated server messages: the start is recognised by one of them. */
const MESSAGES_LOCALE = 'C';
const READY_MESSAGE = 'database system is ready to accept connections';

/** initdb's folder (and its password file) beside the cluster, one per attempt: an earlier attempt's initdb may outlive its Lode. */
const BUILDING_SUFFIX = '.initdb-';

/**
 * Makes the cluster at `databaseDir` with `superuser` and its password. initdb writes into a folder
 * beside it, renamed into place only when initdb succeeded: a first start killed or failing during
 * initdb leaves no folder that looks like a cluster, and the next start begins again from scratch.
 */
export async function initialiseCluster(
  binaries: PostgresBinaries,
  databaseDir: string,
  superuser: { name: string; password: string },
  runAs: RunAs | undefined,
): Promise<void> {
  await removeEarlierAttempts(databaseDir);
  const building = `${databaseDir}${BUILDING_SUFFIX}${process.pid}`;
  // Beside the cluster, where the password is kept anyway: a start killed during initdb leaves it
  // nowhere else, and the next start removes it with the rest of the attempt.
  const passwordFile = `${building}.password`;
  await mkdir(building, { mode: 0o700 });
  await writeFile(passwordFile, `${superuser.password}\n`, { mode: 0o600 });
  if (runAs) for (const owned of [building, passwordFile]) await chown(owned, runAs.uid, runAs.gid);
  try {
    const log: string[] = [];
    const initdb = spawn(
      binaries.initdb,
      [`--pgdata=${building}`, '--auth=scram-sha-256', `--username=${superuser.name}`, `--pwfile=${passwordFile}`, `--lc-messages=${MESSAGES_LOCALE}`],
      { ...runAs, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: MESSAGES_LOCALE } },
    );
    collectTail(initdb, log);
    const { code, signal } = await exited(initdb, binaries.initdb);
    if (code !== 0) throw new Error(`initdb failed (${signal ?? `exit code ${code}`}) making ${databaseDir}:\n${log.join('\n')}`);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(passwordFile, { force: true });
  }
  await rename(building, databaseDir);
  await syncDirectory(path.dirname(databaseDir));
}

/** What earlier attempts left. Best effort: an initdb that outlived its Lode may still be writing there. */
async function removeEarlierAttempts(databaseDir: string): Promise<void> {
  const prefix = `${path.basename(databaseDir)}${BUILDING_SUFFIX}`;
  const entries = await readdir(path.dirname(databaseDir));
  for (const entry of entries.filter((name) => name.startsWith(prefix))) {
    await rm(path.join(path.dirname(databaseDir), entry), { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

export interface Postmaster {
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the server of `databaseDir` and resolves once it accepts connections. Stopped as `pg_ctl
 * stop -m fast` does (SIGINT: open transactions roll back, a checkpoint is written); a Lode that
 * exits without stopping it (a start-up failure) signals it on its way out.
 */
export async function startPostmaster(binaries: PostgresBinaries, databaseDir: string, flags: string[], runAs: RunAs | undefined): Promise<Postmaster> {
  const log: string[] = [];
  const server = spawn(binaries.postgres, ['-D', databaseDir, '-c', `lc_messages=${MESSAGES_LOCALE}`, ...flags], {
    ...runAs,
    cwd: '/',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: MESSAGES_LOCALE },
  });
  collectTail(server, log);
  const stopOnExit = () => server.kill('SIGINT');
  process.once('exit', stopOnExit);
  const ended = exited(server, binaries.postgres);
  const ready = new Promise<void>((resolve) => server.stderr?.on('data', (chunk: Buffer) => chunk.toString().includes(READY_MESSAGE) && resolve()));
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    ended.then(
      () => 'ended' as const,
      (error: unknown) => error,
    ),
  ]);
  if (outcome !== 'ready') {
    process.removeListener('exit', stopOnExit);
    throw new Error(`Embedded Postgres did not start with ${databaseDir}:\n${log.join('\n')}`, { cause: outcome === 'ended' ? undefined : outcome });
  }
  return {
    pid: server.pid ?? 0,
    stop: async () => {
      process.removeListener('exit', stopOnExit);
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.kill('SIGINT');
      await ended;
    },
  };
}

/** Keeps the last lines a child wrote. */
function collectTail(child: ChildProcess, log: string[]): void {
  const keep = (chunk: Buffer) => {
    log.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
    log.splice(0, log.length - LOG_TAIL_LINES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
}

/** How the child ended; a child that could not be started at all (EACCES, ENOENT) rejects, naming the binary. */
function exited(child: ChildProcess, binary: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`Could not run ${binary}: ${error.message}`, { cause: error })));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

/** A rename is durable once its folder is synced. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
