import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.ts';

/** Debian's nats-server, the same binary as the machine's shared server on 4222. */
const NATS_SERVER = '/usr/sbin/nats-server';
const START_DEADLINE_MS = 30_000;

export interface PrivateNats {
  /** nats://127.0.0.1:<port>; the same after a restart. */
  readonly url: string;
  readonly port: number;
  /** The JetStream store, kept across restarts. */
  readonly storeDir: string;
  running(): boolean;
  /** SIGKILL, as a crash would end it: nothing flushed. Resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Ends it and deletes its store. */
  stop(): Promise<void>;
}

/**
 * A NATS server with JetStream of a test's own, on a free port, for tests that kill or restart NATS:
 * the machine's shared server on 4222 is never touched.
 */
export async function startPrivateNats(): Promise<PrivateNats> {
  const port = await freePort();
  const storeDir = await mkdtemp(path.join(tmpdir(), 'lode-nats-'));
  let child: ChildProcess | undefined;
  let log = '';
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const launch = async () => {
    log = '';
    const started = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    started.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    child = started;
    const deadline = Date.now() + START_DEADLINE_MS;
    // "Server is ready" comes after JetStream has recovered its store, so consumers exist again.
    while (!log.includes('Server is ready')) {
      if (!alive()) throw new Error(`nats-server on port ${port} exited while starting:\n${log}`);
      if (Date.now() > deadline) throw new Error(`nats-server on port ${port} not ready after ${START_DEADLINE_MS} ms:\n${log}`);
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
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    running: alive,
    kill: () => end('SIGKILL'),
    async restart() {
      if (alive()) throw new Error('restart() of a nats-server that is still running');
      await launch();
    },
    async stop() {
      await end('SIGTERM');
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
