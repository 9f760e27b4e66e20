import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './repo.ts';

/** Node 24 from the node@24 devDependency, standing in for the image's own node 24. */
const NODE_24 = path.join(REPO_ROOT, 'node_modules/.bin/node');
/** The image's ENTRYPOINT, run from the repository root as the image runs it from /app. */
const ENTRYPOINT_ARGS = ['--import', './libs/telemetry/src/register.ts', 'deploy/entrypoint.ts'];

export interface EntrypointProcess {
  child: ChildProcess;
  /** Everything it printed, for the failure message of a test. */
  output(): string;
  /** Resolves with its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Starts the image's entry point as a plain process with exactly this environment (plus PATH). */
export function startEntrypoint(env: Record<string, string | undefined>): EntrypointProcess {
  const child = spawn(NODE_24, ENTRYPOINT_ARGS, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** True when nothing listens on the URL's port any more (the process closed it or exited). */
export async function refusesConnections(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5000) });
    return false;
  } catch (error) {
    return ((error as Error).cause as { code?: string } | undefined)?.code === 'ECONNREFUSED';
  }
}
