import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SeededProject } from '@lode/testkit';

export const BIN = path.resolve(import.meta.dirname, '../bin/lode.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when the command ran with `--json`. */
  json: any;
}

/** A user of the CLI: a config dir of their own, and the project key as LODE_URL/LODE_KEY/LODE_DEVICE. */
export class CliUser {
  readonly env: NodeJS.ProcessEnv;

  constructor(baseUrl: string, project: SeededProject, configHome: string) {
    this.env = { ...process.env, LODE_URL: baseUrl, LODE_KEY: project.key, LODE_DEVICE: project.deviceId, XDG_CONFIG_HOME: configHome, NO_COLOR: '1' };
  }

  static async create(baseUrl: string, project: SeededProject): Promise<CliUser> {
    return new CliUser(baseUrl, project, await mkdtemp(path.join(tmpdir(), 'lode-cli-config-')));
  }

  /** Starts `lode args…` in `cwd` as a child process, as a user runs it. */
  spawn(cwd: string, args: string[], bin = BIN): ChildProcess {
    return spawn(process.execPath, [bin, ...args], { cwd, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  run(cwd: string, args: string[], bin = BIN): Promise<CliResult> {
    return collect(this.spawn(cwd, args, bin));
  }
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
