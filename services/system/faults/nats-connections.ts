import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, type PrivateNats } from '@lode/testkit';
import { startPrivateServer } from '@lode/testkit/private-server';

const POLL_MS = 20;

/** The suite's NATS server, which also says which client connections it still holds. */
export interface MonitoredNats extends PrivateNats {
  /** Its HTTP monitoring endpoint (/connz), on a port of its own. */
  readonly monitorUrl: string;
}

/**
 * A NATS server with JetStream of the suite's own, as startPrivateNats starts one, with its
 * monitoring port open: the server's own list of connections is the one reliable account of when
 * it stopped routing requests to a process the suite killed.
 */
export async function startMonitoredNats(): Promise<MonitoredNats> {
  const storeDir = await mkdtemp(path.join(tmpdir(), 'lode-nats-'));
  const monitorPort = await freePort();
  const server = await startPrivateServer({
    name: 'nats-server',
    binary: '/usr/sbin/nats-server',
    args: (port) => ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort), '-js', '-sd', storeDir],
    // Printed after JetStream has recovered its store, so consumers exist again.
    readyLine: 'Server is ready',
  });
  return {
    ...server,
    url: `nats://127.0.0.1:${server.port}`,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    storeDir,
    stop: async () => {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/**
 * The local ports of a live process's TCP connections to the NATS server, which is how the server
 * names them in /connz: its socket inodes (/proc/<pid>/fd) looked up in the kernel's TCP tables.
 * Read before the process is killed, since its file descriptors go with it.
 */
export async function natsClientPorts(pid: number, natsPort: number): Promise<number[]> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const inodes = new Set(links.flatMap((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1] ?? []));
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const row of rows) {
      const [, local, remote, , , , , , , inode] = row.trim().split(/\s+/);
      if (inode && inodes.has(inode) && portOf(remote) === natsPort) ports.push(portOf(local));
    }
  }
  return ports;
}

/**
 * Resolves once the server lists none of these client connections any more. NATS removes a
 * connection's subscriptions before it drops the connection from its list, so from then on no
 * request can be routed to them; until then one can be, and waits on a process that is gone.
 */
export async function untilNatsDropped(nats: MonitoredNats, ports: readonly number[], limitMs: number): Promise<void> {
  if (ports.length === 0) return;
  const deadline = performance.now() + limitMs;
  let held: number[] = [...ports];
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`${nats.monitorUrl}/connz?limit=1024`, { signal: AbortSignal.timeout(5000) });
      const { connections } = (await res.json()) as { connections: { port: number }[] | null };
      const open = new Set((connections ?? []).map((c) => c.port));
      held = ports.filter((port) => open.has(port));
      if (held.length === 0) return;
    } catch {
      // A server too busy to answer in time is polled again.
    }
    await delay(POLL_MS);
  }
  throw new Error(`NATS still held the killed processes' connections from ports ${held.join(', ')} ${limitMs} ms after they exited`);
}

/** The port of a /proc/net/tcp address: hex after the colon. */
function portOf(address: string | undefined): number {
  return Number.parseInt(address?.split(':').at(-1) ?? '', 16);
}
