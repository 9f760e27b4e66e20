import { startPrivateServer, type PrivateServer } from './private-server.ts';

export interface PrivateRedis extends PrivateServer {
  /** redis://127.0.0.1:<port>; the same after a restart. Nothing is persisted, so a restart begins empty. */
  readonly url: string;
}

/**
 * A Redis of a test's own on a free port, without persistence, for tests that stop Redis: the
 * machine's shared server on 6379 is never touched.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const server = await startPrivateServer({
    name: 'redis-server',
    binary: '/usr/bin/redis-server',
    args: (port) => ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    readyLine: 'Ready to accept connections',
  });
  return Object.assign(server, { url: `redis://127.0.0.1:${server.port}` });
}
