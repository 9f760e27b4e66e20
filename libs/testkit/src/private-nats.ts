import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPrivateServer, type PrivateServer } from './private-server.ts';

export interface PrivateNats extends PrivateServer {
  /** nats://127.0.0.1:<port>; the same after a restart. */
  readonly url: string;
  /** The JetStream store, kept across restarts. */
  readonly storeDir: string;
}

/**
 * A NATS server with JetStream of a test's own, on a free port, for tests that kill or restart NATS:
 * the machine's shared server on 4222 is never touched.
 */
export async function startPrivateNats(): Promise<PrivateNats> {
  const storeDir = await mkdtemp(path.join(tmpdir(), 'lode-nats-'));
  const server = await startPrivateServer({
    // Debian's nats-server, the same binary as the machine's shared server.
    name: 'nats-server',
    binary: '/usr/sbin/nats-server',
    args: (port) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
    // Printed after JetStream has recovered its store, so consumers exist again.
    readyLine: 'Server is ready',
  });
  return {
    ...server,
    url: `nats://127.0.0.1:${server.port}`,
    storeDir,
    // Ends it and deletes its store.
    stop: async () => {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
