import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.ts';

const REDIS_SERVER = '/usr/bin/redis-server';
const START_DEADLINE_MS = 30_000;

export interface PrivateRedis {
  /** redis://127.0.0.1:<port>; the same after a restart. */
  readonly url: string;
  readonly port: number;
  running(): boolean;
  /** SIGKILL, as a crash would end it. Nothing is persisted, so a restart begins empty. */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A Redis of a test's own on a free port, without persistence, for tests that stop Redis: the
 * machine's shared server on 6379 is never touched.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const launch = async () => {
    log = '';
    const started = spawn(REDIS_SERVER, ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    started.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    child = started;
    const deadline = Date.now() + START_DEADLINE_MS;
    while (!log.includes('Ready to accept connections')) {
      if (!alive()) throw new Error(`redis-server on port ${port} exited while starting:\n${log}`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} not ready after ${START_DEADLINE_MS} ms:\n${log}`);
      await delay(20);
    }
  };
  const end = async (signal: NodeJS.Signals) => {
    if (!child || !alive()) return;
    const gone = new Promise((resolve) => child!.once('exit', resolve));
    child.kill(signal);
    await gone;
  };

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    running: alive,
    kill: () => end('SIGKILL'),
    async restart() {
      if (alive()) throw new Error('restart() of a redis-server that is still running');
      await launch();
    },
    stop: () => end('SIGTERM'),
  };
}
