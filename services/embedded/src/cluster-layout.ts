import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@lode/telemetry';
import { canEnter, type RunAs } from './postgres-user.ts';
import { ensureRootStateDirectory } from './root-state.ts';

/** The cluster's folder in the data directory: the cluster itself, or a link to where it lives. */
const DATABASE_ENTRY = 'postgres';
/** Beside the cluster: the folder of its Unix socket. */
const SOCKET_DIRECTORY = 'postgres-socket';

export interface ClusterLayout {
  /** The cluster's folder (PGDATA), a real path. */
  databaseDir: string;
  /** The folder of its Unix socket, a real path. */
  socketDir: string;
}

/** A cluster is complete once initdb succeeded: only then is it renamed into place (postgres-process.ts). */
export function clusterExists(databaseDir: string): boolean {
  return existsSync(path.join(databaseDir, 'PG_VERSION'));
}

/**
 * Where the data directory's cluster is: in it, or, when its `postgres` entry is a link, where the
 * link points (see placeCluster). Reads only.
 */
export async function existingLayout(dataDir: string): Promise<ClusterLayout> {
  const entry = path.join(dataDir, DATABASE_ENTRY);
  const isLink = (await lstat(entry).catch(() => undefined))?.isSymbolicLink() ?? false;
  const databaseDir = isLink ? path.resolve(dataDir, await readlink(entry)) : entry;
  return { databaseDir, socketDir: path.join(path.dirname(databaseDir), SOCKET_DIRECTORY) };
}

/**
 * The layout for this start. Lode's own user, or a data directory the Postgres user can enter, or
 * one whose cluster already exists: the cluster lives in the data directory. As root, with a data
 * directory the Postgres user cannot enter (under /root, 0700) and no cluster yet: the cluster and
 * its socket live in a folder of the root-owned state folder named after the data directory's
 * path, and the data directory's `postgres` entry is a link to it, made before the cluster is, so
 * that a start killed on the way finds it again. The data directory's own modes are left alone.
 */
export async function placeCluster(dataDir: string, runAs: RunAs | undefined, logger: Logger): Promise<ClusterLayout> {
  const entry = path.join(dataDir, DATABASE_ENTRY);
  let layout = await existingLayout(dataDir);
  if (layout.databaseDir === entry) {
    if (clusterExists(entry)) return layout;
    if (existsSync(entry)) {
      // A folder with no complete cluster in it: what an earlier version's interrupted initdb left.
      logger.warn({ databaseDir: entry }, 'removing an incomplete embedded Postgres cluster left by an interrupted first start');
      await rm(entry, { recursive: true, force: true });
    }
    if (await canEnter(runAs, dataDir)) return layout;
    layout = await moveOut(dataDir, entry, logger);
  }
  logger.info(
    { dataDir, databaseDir: layout.databaseDir },
    `the embedded database lives in ${layout.databaseDir}, linked from ${entry} (the Postgres user cannot enter ${dataDir}): back up both`,
  );
  return layout;
}

async function moveOut(dataDir: string, entry: string, logger: Logger): Promise<ClusterLayout> {
  const home = path.join(await ensureRootStateDirectory(), createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  if (existsSync(path.join(home, DATABASE_ENTRY))) {
    // The cluster of an earlier data directory at this path, since removed: its passwords went with
    // it, so this one cannot use it. It is set aside, never deleted.
    const aside = `${home}.replaced-${new Date().toISOString().replaceAll(':', '-')}`;
    await rename(home, aside);
    logger.warn({ dataDir, aside }, `a database left by an earlier data directory at ${dataDir} was moved to ${aside}`);
  }
  await mkdir(home, { recursive: true, mode: 0o711 });
  await chmod(home, 0o711);
  const databaseDir = path.join(home, DATABASE_ENTRY);
  await symlink(databaseDir, entry);
  return { databaseDir, socketDir: path.join(home, SOCKET_DIRECTORY) };
}
