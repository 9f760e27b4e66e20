import { readdir, readFile, readlink } from 'node:fs/promises';
import type { ServiceProcess } from '@lode/testkit';
import type { FaultSystem } from './fault-system.ts';

/**
 * The process among `candidates` whose Postgres connection has had a transaction open for at
 * least `minAgeMs` (a large commit's), found from pg_stat_activity's client port and the sockets
 * each process holds (/proc): replicas share one application_name, so this is how the suite kills
 * the replica that is in the middle of the work and not its idle twin.
 */
export async function processInLongTransaction(
  system: FaultSystem,
  applicationName: string,
  minAgeMs: number,
  candidates: readonly ServiceProcess[],
): Promise<ServiceProcess | undefined> {
  const rows = await system.sql<{ port: number }>(
    `SELECT client_port AS port FROM pg_stat_activity
     WHERE datname = $1 AND application_name = $2 AND xact_start < now() - make_interval(secs => $3)
     ORDER BY xact_start LIMIT 1`,
    [system.databaseName, applicationName, minAgeMs / 1000],
  );
  return rows.length === 0 ? undefined : ownerOf(rows[0].port, candidates);
}

/**
 * The processes among `candidates` with a Postgres connection waiting for a lock the backend
 * `blockerPid` holds: the replicas caught in the middle of work the suite made wait.
 */
export async function processesBlockedBy(
  system: FaultSystem,
  blockerPid: number,
  applicationName: string,
  candidates: readonly ServiceProcess[],
): Promise<Set<ServiceProcess>> {
  const rows = await system.sql<{ port: number }>(
    `SELECT client_port AS port FROM pg_stat_activity
     WHERE datname = $1 AND application_name = $2 AND $3 = ANY(pg_blocking_pids(pid))`,
    [system.databaseName, applicationName, blockerPid],
  );
  const owners = await Promise.all(rows.map(({ port }) => ownerOf(port, candidates)));
  return new Set(owners.filter((p) => p !== undefined));
}

/** The candidate holding the client end of a Postgres connection, by its local port. */
async function ownerOf(clientPort: number, candidates: readonly ServiceProcess[]): Promise<ServiceProcess | undefined> {
  const inode = await socketInode(clientPort);
  if (!inode) return undefined;
  for (const p of candidates) {
    if (p.child.pid !== undefined && (await holdsSocket(p.child.pid, inode))) return p;
  }
  return undefined;
}

/** The inode of the IPv4 TCP socket bound to this local port (/proc/net/tcp: hex local address, inode in column 10). */
async function socketInode(localPort: number): Promise<string | undefined> {
  const table = await readFile('/proc/net/tcp', 'utf8');
  for (const line of table.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns.length < 10) continue;
    if (Number.parseInt(columns[1].split(':')[1], 16) === localPort) return columns[9];
  }
  return undefined;
}

async function holdsSocket(pid: number, inode: string): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  for (const fd of fds) {
    if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === `socket:[${inode}]`) return true;
  }
  return false;
}
