import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { UNHANDLED_REJECTION_MESSAGE } from '@lode/runtime';
import { keepOutput, recordSecretSettings, testLogsKept } from './test-logs.ts';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
/** Node 24 from the node@24 devDependency, whatever `node` is on PATH. */
export const NODE_24 = path.join(REPO_ROOT, 'node_modules/.bin/node');

export interface ServiceProcess {
  name: string;
  /** The running incarnation: a new one after restart(). */
  readonly child: ChildProcess;
  /** Its ops server (/healthz, /readyz, /metrics); undefined when it picked a free port itself (LODE_OPS_PORT=0). */
  readonly opsUrl: string | undefined;
  /** What every incarnation printed. */
  output: () => string;
  /** The fatal lines in which libs/runtime's guard reported an unhandled rejection, from every incarnation. */
  unhandledRejections(): Record<string, unknown>[];
  /** Whether the current incarnation is still alive. */
  running(): boolean;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash or the OOM killer would end it: nothing drained, acked or flushed. Resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts it again, with the same environment and ports, after it exited. */
  restart(): void;
}

/**
 * Runs a process's own main.ts (services/<name>/src/main.ts: the gateway, the embedded process) as
 * its own OS process, as a deployment would; `entry` runs another script the same way (the one
 * entry of the registry's services, a test's fixture). In a test run it logs at `info`, as in
 * production, into the test file's log (test-logs.ts), and the secrets among its settings are recorded.
 */
export function spawnService(name: string, env: Record<string, string>, entry = path.join(REPO_ROOT, `services/${name}/src/main.ts`)): ServiceProcess {
  recordSecretSettings(env);
  // Port 0: many processes share this host, so each ops server takes any free port unless told one.
  const fullEnv = { ...process.env, LOG_LEVEL: testLogsKept() ? 'info' : 'warn', LODE_OPS_PORT: '0', ...env };
  const opsPort = Number(fullEnv.LODE_OPS_PORT);
  let output = '';
  // Log lines are read from stdout alone: a stderr chunk interleaved into `output` could split one.
  let stdout = '';
  const launch = () => {
    // Started as deployed: the telemetry register hook first, so metrics and (when OTEL_* asks) tracing run.
    const child = spawn(NODE_24, ['--import', path.join(REPO_ROOT, 'libs/telemetry/src/register.ts'), entry], {
      env: fullEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    keepOutput(name, child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited };
  };
  let current = launch();
  const running = () => current.child.exitCode === null && current.child.signalCode === null;
  return {
    name,
    get child() {
      return current.child;
    },
    opsUrl: opsPort > 0 ? `http://127.0.0.1:${opsPort}` : undefined,
    output: () => output,
    unhandledRejections: () =>
      stdout
        .split('\n')
        .filter((line) => line.includes(UNHANDLED_REJECTION_MESSAGE))
        .flatMap(fatalRejection),
    running,
    async stop() {
      if (running()) current.child.kill('SIGTERM');
      return current.exited;
    },
    async kill() {
      if (running()) current.child.kill('SIGKILL');
      await current.exited;
    },
    restart() {
      if (running()) throw new Error(`${name} (pid ${current.child.pid}) is still running`);
      output += `\n--- ${name} restarted ---\n`;
      stdout += '\n';
      current = launch();
    },
  };
}

/** A pino line is JSON; fatal is level 60. */
function fatalRejection(line: string): Record<string, unknown>[] {
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    return parsed.level === 60 && parsed.msg === UNHANDLED_REJECTION_MESSAGE ? [parsed] : [];
  } catch {
    return [];
  }
}

/** Throws naming every process whose guard reported an unhandled rejection: a bug that Node's default would have made a crash. */
export function assertNoUnhandledRejections(processes: readonly ServiceProcess[]): void {
  const reported = processes.flatMap((p) =>
    p.unhandledRejections().map((line) => `${p.name} (${p.opsUrl ?? 'pid ' + String(p.child.pid)}): ${JSON.stringify(line)}`),
  );
  if (reported.length > 0) throw new Error(`${reported.length} unhandled rejection(s) reported:\n${reported.join('\n')}`);
}

export async function waitForReady(baseUrl: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) return;
      last = await res.text();
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready after ${timeoutMs} ms: ${last}`);
}

/**
 * Resolves once the process's ops server answers /readyz. One that exits on its way up (a shared
 * Postgres out of connections, say) is started again, as an orchestrator would, at most `restarts`
 * times; past that, or past the timeout, this fails with what it printed.
 */
/** Polls until a process has shown what a test waits for; the 30 s deadline is generous, not a timing assumption. */
export async function untilProcessShows(p: ServiceProcess, check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} never came:\n${p.output().slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function untilReady(p: ServiceProcess, options: { timeoutMs?: number; restarts?: number } = {}): Promise<void> {
  if (!p.opsUrl) throw new Error(`${p.name} has no known ops port`);
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let restarts = options.restarts ?? 3;
  let last = '';
  while (Date.now() < deadline) {
    if (!p.running()) {
      if (restarts-- === 0) break;
      await new Promise((r) => setTimeout(r, 1000));
      p.restart();
    }
    try {
      const res = await fetch(`${p.opsUrl}/readyz`);
      if (res.status === 200) return;
      last = await res.text();
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} (${p.opsUrl}) not ready: ${p.running() ? last : 'it exited'}\n${p.output().slice(-4000)}`);
}

/** untilReady for several at once; settled, not raced, so no wait left running restarts a process after a failure. */
export async function untilAllReady(processes: readonly ServiceProcess[], options?: { timeoutMs?: number; restarts?: number }): Promise<void> {
  const failed = (await Promise.allSettled(processes.map((p) => untilReady(p, options)))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Peak resident memory of a process so far (VmHWM), in bytes. */
export async function peakRssBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmHWM for ${pid}`);
  return Number(kb) * 1024;
}

/**
 * The bus requests a process has handled so far, by subject (every outcome), read from its
 * /metrics: which replica of a queue group served what.
 */
export async function busRequestsHandled(p: ServiceProcess): Promise<Map<string, number>> {
  if (!p.opsUrl) throw new Error(`${p.name} has no known ops port`);
  const text = await (await fetch(`${p.opsUrl}/metrics`)).text();
  const handled = new Map<string, number>();
  for (const [, labels, value] of text.matchAll(/^lode_bus_handler_duration_count\{([^}]*)\} (\S+)$/gm)) {
    const subject = /messaging_destination_name="([^"]+)"/.exec(labels)?.[1];
    if (subject) handled.set(subject, (handled.get(subject) ?? 0) + Number(value));
  }
  return handled;
}
