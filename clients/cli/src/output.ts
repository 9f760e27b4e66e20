import pc from 'picocolors';
import type { CliError } from './failure.ts';

/** Where results go: one JSON document on stdout with `--json`, readable lines otherwise. */
export class Output {
  readonly json: boolean;

  constructor(json: boolean) {
    this.json = json;
  }

  /** The command's result: `value` as JSON, or the lines `human` writes. */
  result(value: unknown, human: () => string[]): void {
    if (this.json) process.stdout.write(`${JSON.stringify(value)}\n`);
    else for (const line of human()) process.stdout.write(`${line}\n`);
  }

  /** A note on the way (stderr, so it never mixes with a JSON result). */
  note(line: string): void {
    if (!this.json) process.stderr.write(`${line}\n`);
  }

  failure(error: CliError): void {
    if (this.json) process.stdout.write(`${JSON.stringify({ error: { ...error.details, code: error.code, message: error.message } })}\n`);
    else process.stderr.write(`${pc.red('error:')} ${error.message}\n`);
  }
}

export const colors = pc;

/** "1 file", "2 files". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
}

/** Stored bytes as a percentage of a quota, one decimal ("82.5"); a zero quota is full. */
export function percentUsed(storedBytes: number, quotaBytes: number): string {
  return quotaBytes === 0 ? '100.0' : ((storedBytes / quotaBytes) * 100).toFixed(1);
}
