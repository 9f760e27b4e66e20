import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '@lode/telemetry';
import { stopLeftoverPostmaster } from '../src/leftover-postmaster.ts';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A process that has exited but is not yet reaped, as a postmaster killed with its Lode is until its
 * new parent reaps it: `sh` starts a child that exits at once, then becomes `sleep`, which never
 * waits for it. The zombie is reaped once that parent exits, `holdMs` later.
 */
async function zombie(holdMs: number): Promise<number> {
  const parent = spawn('sh', ['-c', `sh -c 'echo $$' & exec sleep ${holdMs / 1000}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  while (
    !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)])
      .toString()
      .startsWith('Z')
  )
    await sleep(10);
  return pid;
}

async function newCluster(): Promise<{ dataDir: string; databaseDir: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-leftover-'));
  folders.push(dataDir);
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(databaseDir);
  return { dataDir, databaseDir };
}

it('removes the empty lock file of a postmaster killed before it wrote its pid, unless a server of the cluster runs', async () => {
  const { dataDir, databaseDir } = await newCluster();
  const lockFile = path.join(databaseDir, 'postmaster.pid');
  await writeFile(lockFile, '');
  // A process whose command line names the cluster as a server's does: it may be writing the lock.
  const starting = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)', '--', '-D', databaseDir], { stdio: 'ignore' });
  try {
    await stopLeftoverPostmaster(dataDir, databaseDir, createLogger('test', 'silent'));
    expect(existsSync(lockFile)).toBe(true);
  } finally {
    starting.kill();
  }
  await new Promise((resolve) => starting.once('exit', resolve));

  await stopLeftoverPostmaster(dataDir, databaseDir, createLogger('test', 'silent'));
  expect(existsSync(lockFile)).toBe(false);
});

it('waits for a killed, unreaped postmaster to be gone before Postgres reads its lock file', { timeout: 60_000 }, async () => {
  const { dataDir, databaseDir } = await newCluster();
  const pid = await zombie(2_000);
  await writeFile(path.join(databaseDir, 'postmaster.pid'), `${pid}\n${databaseDir}\n`);

  expect(alive(pid)).toBe(true);
  await stopLeftoverPostmaster(dataDir, databaseDir, createLogger('test', 'silent'));
  expect(alive(pid)).toBe(false);
});
