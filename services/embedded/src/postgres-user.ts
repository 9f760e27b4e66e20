import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The OS user Postgres runs as when Lode runs as root (Postgres refuses to run as root). */
export const POSTGRES_OS_USER = 'postgres';

export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * Who Postgres's processes run as: Lode's own user, or, as root, the `postgres` OS user, made
 * when missing (a fresh container has none). Undefined means Lode's own user.
 */
export async function postgresRunAs(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookUp();
  if (existing) return existing;
  await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_OS_USER]).catch((error: unknown) => {
    throw new Error(`Postgres cannot run as root, and no OS user "${POSTGRES_OS_USER}" could be made for it (useradd: ${(error as Error).message.trim()})`, {
      cause: error,
    });
  });
  const made = await lookUp();
  if (!made) throw new Error(`useradd reported success, yet no OS user "${POSTGRES_OS_USER}" exists`);
  return made;
}

async function lookUp(): Promise<RunAs | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', POSTGRES_OS_USER]), run('id', ['-g', POSTGRES_OS_USER])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/**
 * Whether `runAs` can enter `dir` (search permission on it and every directory on the way), asked
 * of the system itself by a shell running as that user, so ACLs and odd modes count as they will for
 * Postgres. Node starts a child under another uid without supplementary groups, as it starts Postgres.
 */
export async function canEnter(runAs: RunAs | undefined, dir: string): Promise<boolean> {
  if (!runAs) return true;
  return run('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { uid: runAs.uid, gid: runAs.gid, cwd: '/' }).then(
    () => true,
    () => false,
  );
}
