import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.ts';

const START_DEADLINE_MS = 30_000;

/** A server binary a test runs on a free port of its own, and may kill and start again on that port. */
export interface PrivateServer {
  readonly port: number;
  running: () => boolean;
  /** SIGKILL, as a crash would end it: nothing flushed. Resolves once it is gone. */
  kill: () => Promise<void>;
  /** Starts it again on the same port; resolves once it says it is ready. */
  restart: () => Promise<void>;
  /** SIGTERM; resolves once it is gone. */
  stop: () => Promise<void>;
}

export interface PrivateServerSpec {
  /** For messages, e.g. nats-server. */
  name: string;
  binary: string;
  args: (port: number) => string[];
  /** What it prints once it accepts connections. */
  readyLine: string;
}

/** Starts a server of the test's own, never the machine's shared one, and waits until it is ready. */
export async function startPrivateServer(spec: PrivateServerSpec): Promise<PrivateServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const launch = async () => {
    log = '';
    const started = spawn(spec.binary, spec.args(port), { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    started.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    child = started;
    const deadline = Date.now() + START_DEADLINE_MS;
    while (!log.includes(spec.readyLine)) {
      if (!alive()) throw new Error(`${spec.name} on port ${port} exited while starting:\n${log}`);
      if (Date.now() > deadline) throw new Error(`${spec.name} on port ${port} not ready after ${START_DEADLINE_MS} ms:\n${log}`);
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
    port,
    running: alive,
    kill: () => end('SIGKILL'),
    async restart() {
      if (alive()) throw new Error(`restart() of a ${spec.name} that is still running`);
      await launch();
    },
    stop: () => end('SIGTERM'),
  };
}
