import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createLogger, logFile, type Logger } from '@lode/telemetry/logger';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Shorter values are never recorded as secrets: a test's own short inputs echoed back (a token
 * `short` refused as invalid) would match ordinary words in the logs. Every secret Lode makes is
 * longer (an API key is 45 characters, a session token 43).
 */
export const MIN_SECRET_LENGTH = 16;

/** Where a test run keeps its logs and the secrets it saw: .ci/test-logs unless LODE_TEST_LOG_DIR says otherwise. */
export function testLogDir(): string {
  return path.resolve(REPO_ROOT, process.env.LODE_TEST_LOG_DIR ?? '.ci/test-logs');
}

/** A recorded secret: one JSON line per secret in `<test file>.secrets`. */
export interface RecordedSecret {
  kind: string;
  value: string;
}

interface KeptFile {
  logFile: string;
  /** Opened once a logger or a process needs it: a test file without either leaves no empty log. */
  log?: ReturnType<typeof logFile>;
  secretsFile: string;
  secrets: Set<string>;
}

/** The test file this worker runs, once keepTestLogs named it: logs and secrets go to its files. */
let kept: KeptFile | undefined;

/**
 * From now on this process's test loggers and the output of the processes it starts go, at `info`,
 * to `<run folder>/<test file>.log`, and the secrets its clients see to `<test file>.secrets`.
 * Called for each test file by the vitest setup file (keep-test-logs.ts); outside vitest (the
 * bench) nothing is kept and test stacks log nothing, as before.
 */
export function keepTestLogs(testFile: string): void {
  const base = path.join(testLogDir(), path.relative(REPO_ROOT, testFile));
  mkdirSync(path.dirname(base), { recursive: true });
  kept = { logFile: `${base}.log`, secretsFile: `${base}.secrets`, secrets: new Set() };
}

function keptLog(file: KeptFile): ReturnType<typeof logFile> {
  return (file.log ??= logFile(file.logFile));
}

/** Resolves once every line written so far is in the file; a worker may end right after its last test. */
export async function flushTestLogs(): Promise<void> {
  const log = kept?.log;
  if (log) await new Promise<void>((resolve, reject) => log.flush((error) => (error ? reject(error) : resolve())));
}

/** Whether logs are being kept: processes are then started at `info` rather than `warn`. */
export function testLogsKept(): boolean {
  return kept !== undefined;
}

/** The logger of an in-process test stack: to the test file's log at `info` (TEST_LOG_LEVEL to change it), silent when none is kept. */
export function testLogger(name: string): Logger {
  return kept ? createLogger(name, process.env.TEST_LOG_LEVEL ?? 'info', keptLog(kept)) : createLogger(name, process.env.TEST_LOG_LEVEL ?? 'silent');
}

/**
 * Appends what a child process prints to the test file's log, whole lines at a time, so that lines
 * of several processes and of the in-process logger never cut into each other. Stdout lines (pino's
 * JSON) are kept as printed; stderr lines are prefixed with the process's name, as they carry none.
 */
export function keepOutput(name: string, child: { stdout: Readable | null; stderr: Readable | null; pid?: number }): void {
  if (!kept) return;
  const log = keptLog(kept);
  const tee = (stream: Readable | null, prefix: string) => {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const end = text.lastIndexOf('\n') + 1;
      partial = text.slice(end);
      if (end > 0) log.write(prefix ? text.slice(0, end).replace(/^(?=.)/gm, prefix) : text.slice(0, end));
    });
    stream?.on('end', () => {
      if (partial) log.write(`${prefix}${partial}\n`);
      partial = '';
    });
  };
  tee(child.stdout, '');
  tee(child.stderr, `[${name} ${child.pid ?? '?'} stderr] `);
}

/** Records a secret the run created, for the check that no log holds it (check-test-logs). */
export function recordSecret(kind: string, value: string): void {
  if (!kept || value.length < MIN_SECRET_LENGTH || kept.secrets.has(value)) return;
  kept.secrets.add(value);
  appendFileSync(kept.secretsFile, `${JSON.stringify({ kind, value } satisfies RecordedSecret)}\n`);
}

/** Settings whose values are secrets, by name: LODE_ADMIN_TOKEN, LODE_STORAGE_SECRET, S3_SECRET_ACCESS_KEY, a password. */
const SECRET_SETTING = /TOKEN|SECRET|PASSWORD|(^|_)KEY$/;

/** Records every setting of `environment` that is a secret by its name, under that name. */
export function recordSecretSettings(environment: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(environment)) if (value && SECRET_SETTING.test(name)) recordSecret(name, value);
}
