import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { RecordedSecret } from './test-logs.ts';

/** A recorded secret found in a log: where, and of which kind; never the secret itself. */
export interface Leak {
  /** Relative to the run folder. */
  file: string;
  line: number;
  kind: string;
  /** The secret's first characters, enough to tell which one it was without printing it. */
  prefix: string;
}

export interface LogCheck {
  /** The run folder checked. */
  dir: string;
  leaks: Leak[];
  /** Why the check could not vouch for the run (no secrets recorded, no log lines): each fails it. */
  problems: string[];
  secrets: number;
  logFiles: number;
  logBytes: number;
}

const PREFIX_LENGTH = 6;

/**
 * Searches every `.log` file of a run folder for every secret of its `.secrets` files. An empty
 * list or empty logs fail the check too: they mean the plumbing broke (no setup file, a silent
 * logger), not that nothing leaked. The search is grep's fixed-string search, which matches all
 * the run's secrets in one pass over the logs.
 */
export function checkTestLogs(dir: string): LogCheck {
  const files = listFiles(dir);
  const logs = files.filter((file) => file.endsWith('.log'));
  const logBytes = logs.reduce((sum, file) => sum + statSync(file).size, 0);
  const secrets = new Map<string, string>();
  for (const file of files.filter((name) => name.endsWith('.secrets'))) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      const { kind, value } = JSON.parse(line) as RecordedSecret;
      secrets.set(value, kind);
    }
  }
  const problems: string[] = [];
  if (secrets.size === 0) problems.push(`no secrets were recorded in ${dir}: the test clients or the setup file (keep-test-logs.ts) no longer record them`);
  if (logBytes === 0) problems.push(`no log lines were kept in ${dir}: the test stacks or processes no longer log to the run folder`);
  const leaks = secrets.size > 0 && logBytes > 0 ? grepSecrets(dir, secrets) : [];
  return { dir, leaks, problems, secrets: secrets.size, logFiles: logs.length, logBytes };
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function grepSecrets(dir: string, secrets: Map<string, string>): Leak[] {
  // -o prints each match on its own (file:line:secret): which secret it was, even with several on a line.
  const grep = spawnSync('grep', ['-r', '-n', '-o', '-F', '--binary-files=text', '--include=*.log', '-f', '-', dir], {
    input: [...secrets.keys()].join('\n'),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  // 1: no line matched.
  if (grep.status === 1) return [];
  if (grep.status !== 0) throw new Error(`grep failed (${grep.status ?? grep.signal}): ${grep.error?.message ?? grep.stderr}`);
  return grep.stdout
    .split('\n')
    .filter(Boolean)
    .map((hit) => {
      const [, file, line, secret] = /^(.*?):(\d+):(.*)$/s.exec(hit) ?? [];
      return { file: path.relative(dir, file), line: Number(line), kind: secrets.get(secret) ?? 'unknown', prefix: `${secret.slice(0, PREFIX_LENGTH)}…` };
    });
}

/** What the check prints: one line per leak, then the problems; the empty string when the run is clean. */
export function describeLogCheck(check: LogCheck): string {
  const lines = check.leaks.map((leak) => `${leak.file}:${leak.line}: ${leak.kind} (${leak.prefix}) is in this log line`);
  if (check.leaks.length > 0) lines.unshift(`${check.leaks.length} secret(s) of the run found in its logs, under ${check.dir}:`);
  return [...lines, ...check.problems].join('\n');
}
