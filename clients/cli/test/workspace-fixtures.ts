import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { StackOptions, TestStack } from '@lode/system/testing';
import type { SeededProject } from '@lode/testkit';
import { FileMonitor } from '../src/fs-monitor.ts';
import { CliUser, type CliResult } from './cli-runner.ts';

/**
 * The two ways Lode runs, for the tests whose transfers matter: `npm start`'s one process (in-process
 * bus, blobs on local disk behind the gateway) and production's (NATS, presigned URLs of Swift's S3).
 */
export const RUN_MODES: [string, StackOptions][] = [
  ['embedded: in-process bus, local disk', { bus: 'local' }],
  ['NATS, Swift S3', { bus: 'nats', storage: 's3' }],
];

export async function emptyDir(prefix = 'lode-ws-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** Watchman watches each root with an inotify instance of its own, of which a user has few: each is let go once done with. */
export async function unwatch(roots: string[]): Promise<void> {
  const monitor = await FileMonitor.connect();
  for (const root of roots.splice(0)) await monitor.unwatch(root);
  monitor.end();
}

/** A fresh workspace (`lode init`) for this user. */
export async function newWorkspace(user: CliUser): Promise<string> {
  const dir = await emptyDir();
  expectOk(await user.run(dir, ['init']));
  return dir;
}

/** A new project's owner, Ada, with a fresh workspace, and a member of it, Bo: each the CLI's user. */
export async function ownerAndMember(stack: TestStack): Promise<{ owner: SeededProject; ada: CliUser; bo: CliUser; ws: string }> {
  const owner = await stack.seed.project();
  const member = await stack.seed.member(owner.orgId, owner.projectId, 'member');
  const [ada, bo] = await Promise.all([CliUser.create(stack.baseUrl, owner), CliUser.create(stack.baseUrl, member)]);
  return { owner, ada, bo, ws: await newWorkspace(ada) };
}

/** Writes `count` files of random bytes under `folder`, `size` bytes each. */
export async function writeRandomFiles(root: string, folder: string, count: number, size: number): Promise<string[]> {
  await mkdir(path.join(root, folder), { recursive: true });
  const names = Array.from({ length: count }, (_, i) => `${folder}/f${String(i).padStart(5, '0')}.bin`);
  for (const name of names) await writeFile(path.join(root, name), randomBytes(size));
  return names;
}

export async function writeText(root: string, name: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, name)), { recursive: true });
  await writeFile(path.join(root, name), text);
}

export const readText = (root: string, name: string) => readFile(path.join(root, name), 'utf8');

/** Two workspaces hold the same files, byte for byte (their .lode state aside). */
export function expectSameTree(a: string, b: string): void {
  expect(() => execFileSync('diff', ['-r', '-q', '-x', '.lode', a, b])).not.toThrow();
}

export function expectOk(result: CliResult): CliResult {
  if (result.code !== 0) throw new Error(`lode exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
}
