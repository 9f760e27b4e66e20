import { execFileSync, spawn } from 'node:child_process';
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

it('waits for a killed, unreaped postmaster to be gone before Postgres reads its lock file', { timeout: 60_000 }, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lode-leftover-'));
  folders.push(dataDir);
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(databaseDir);
  const pid = await zombie(2_000);
  await writeFile(path.join(databaseDir, 'postmaster.pid'), `${pid}\n${databaseDir}\n`);

  expect(alive(pid)).toBe(true);
  await stopLeftoverPostmaster(dataDir, databaseDir, createLogger('test', 'silent'));
  expect(alive(pid)).toBe(false);
});
