import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
/** Node 24 from the node@24 devDependency, whatever `node` is on PATH. */
export const NODE_24 = path.join(REPO_ROOT, 'node_modules/.bin/node');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs a service's main.ts as its own OS process, as a deployment would. */
export function spawnService(name: string, env: Record<string, string>): ServiceProcess {
  // Started as deployed: the telemetry register hook first, so metrics and (when OTEL_* asks) tracing run.
  const child = spawn(NODE_24, ['--import', path.join(REPO_ROOT, 'libs/telemetry/src/register.ts'), path.join(REPO_ROOT, `services/${name}/src/main.ts`)], {
    // Port 0: many processes share this host, so each ops server takes any free port unless told one.
    env: { ...process.env, LOG_LEVEL: 'warn', LODE_OPS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
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

/** Peak resident memory of a process so far (VmHWM), in bytes. */
export async function peakRssBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmHWM for ${pid}`);
  return Number(kb) * 1024;
}
