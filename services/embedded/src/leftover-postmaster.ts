import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Logger } from '@lode/telemetry';

/**
 * A Postgres that an embedded Lode left running when it died without its shutdown (SIGKILL, the
 * OOM killer). Its postmaster outlives the Node process, keeps the data directory's lock
 * (postmaster.pid) and the port, and the next start would fail on them. It is stopped the way
 * `pg_ctl stop -m fast` stops a server (SIGINT: open transactions roll back, a checkpoint is
 * written), so nothing committed is lost, and the new start then owns its Postgres again.
 */

/** Pid of the Lode process whose child the running postmaster is; tells a leftover from a live Lode's. */
const OWNER_FILE = 'embedded-postgres.owner';
/** pg_ctl's own default wait: a fast shutdown is a checkpoint away from done. */
const STOP_TIMEOUT_MS = 60_000;
/** How long a killed postmaster may stay unreaped before the start goes on and Postgres names the lock. */
const REAP_TIMEOUT_MS = 30_000;

const run = promisify(execFile);

export async function recordOwner(dataDir: string): Promise<void> {
  await writeFile(path.join(dataDir, OWNER_FILE), `${process.pid}\n`, { mode: 0o600 });
}

export async function forgetOwner(dataDir: string): Promise<void> {
  await rm(path.join(dataDir, OWNER_FILE), { force: true });
}

/**
 * Stops the postmaster that holds `databaseDir` if no live Lode owns it; refuses to start when one
 * does (two Lodes on one data directory would share a database and fight over the port).
 */
export async function stopLeftoverPostmaster(dataDir: string, databaseDir: string, logger: Logger): Promise<void> {
  const lockFile = path.join(databaseDir, 'postmaster.pid');
  const pid = await lockHolder(lockFile);
  if (pid === undefined) return clearUnwrittenLock(lockFile, databaseDir, logger);
  const holder = await processInfo(pid);
  // A postmaster killed with its Lode is dead but, until its new parent reaps it, still answers to
  // its pid, which Postgres would take for a live server holding the lock: wait until it is gone.
  if (holder?.state.startsWith('Z')) return waitUntilGone(pid, REAP_TIMEOUT_MS);
  // No such process: a stale lock file, which Postgres clears itself. Another program under that pid
  // (reused after a reboot): not ours to signal; Postgres's own refusal then names the lock file.
  if (!holder || !servesCluster(holder.command, databaseDir)) return;
  const owner = await readOwner(dataDir);
  if (owner === holder.ppid) {
    throw new Error(`Another Lode (pid ${owner}) is running with LODE_DATA_DIR=${dataDir}: stop it, or give this one its own LODE_DATA_DIR`);
  }
  logger.warn({ pid, databaseDir }, 'stopping the embedded Postgres that a previous Lode left running (it was killed before its shutdown)');
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  // Postgres removes its lock file as the last step of its exit, after closing the port.
  while (existsSync(lockFile) && alive(pid)) {
    if (Date.now() > deadline) throw new Error(`The leftover embedded Postgres (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s`);
    await sleep(100);
  }
}

/**
 * A postmaster killed between creating its lock file and writing its pid leaves the file empty, and
 * Postgres refuses to start on an empty lock (it cannot tell a crash from a server still starting).
 * With no server of this cluster running, nothing can be writing it: it is removed.
 */
async function clearUnwrittenLock(lockFile: string, databaseDir: string, logger: Logger): Promise<void> {
  const text = await readFile(lockFile, 'utf8').catch(() => undefined);
  if (text === undefined || text.trim() !== '') return;
  if (await serverRunning(databaseDir)) return;
  logger.warn({ lockFile }, 'removing the empty lock file of an embedded Postgres killed as it started');
  await rm(lockFile, { force: true });
}

/** Whether any process runs a server on `databaseDir` (`ps` lists every process, on Linux and macOS alike). */
async function serverRunning(databaseDir: string): Promise<boolean> {
  const { stdout } = await run('ps', ['-A', '-o', 'args=']);
  return stdout.split('\n').some((command) => servesCluster(command, databaseDir));
}

/** Whether a command line is a server's on `databaseDir`: its `-D` argument is that folder, not one whose name begins with it. */
function servesCluster(command: string, databaseDir: string): boolean {
  const option = `-D ${databaseDir}`;
  return command.includes(`${option} `) || command.trimEnd().endsWith(option);
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
}

/** The first line of postmaster.pid is the postmaster's pid. */
async function lockHolder(lockFile: string): Promise<number | undefined> {
  const text = await readFile(lockFile, 'utf8').catch(() => undefined);
  const pid = Number(text?.split('\n', 1)[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

async function readOwner(dataDir: string): Promise<number | undefined> {
  const text = await readFile(path.join(dataDir, OWNER_FILE), 'utf8').catch(() => undefined);
  const pid = Number(text?.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Parent pid, state (`Z`: a zombie) and command line, from `ps` (Linux and macOS alike); undefined when no such process. */
async function processInfo(pid: number): Promise<{ ppid: number; state: string; command: string } | undefined> {
  const listed = await run('ps', ['-o', 'ppid=', '-o', 'stat=', '-o', 'args=', '-p', String(pid)]).catch((error: unknown) => {
    // ps exits 1 when the pid matches no process; anything else (no ps at all) is a real failure.
    if ((error as { code?: unknown }).code === 1) return undefined;
    throw error;
  });
  const match = listed && /^\s*(\d+)\s+(\S+)\s+(.*)$/s.exec(listed.stdout);
  return match ? { ppid: Number(match[1]), state: match[2], command: match[3].trim() } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
