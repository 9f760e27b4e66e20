import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_MULTIPART_THRESHOLD, hasUnpairedSurrogate } from '@lode/sdk';
import { CliError, EXIT } from '../failure.ts';
import { baseUrl } from '../settings.ts';

/** Versions are Postgres integers on the server (docs/api.md, Input rules). */
export const MAX_VERSION = 2_147_483_647;
/** A list page holds at most 200 items (docs/api.md, Conventions). */
export const MAX_PAGE = 200;
/** initiate-batch and confirm-batch take at most 1,000 entries. */
export const MAX_BATCH_SIZE = 1000;
/** Transfers in flight: beyond a few hundred sockets a client only queues at the store. */
export const MAX_CONCURRENCY = 256;

/**
 * A parser for a whole-number option from `min` to `max`. Its refusal is commander's
 * InvalidArgumentError, which commander reports as a usage error naming the option (exit 2); a bare
 * Number() let "abc" through as NaN (no transfer limit at all) and "0" through as an endless loop.
 */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

export const versionNumber = wholeNumber(1, MAX_VERSION);

/** `-n, --limit <n>`: how many items of a list to show. */
export const limitOption = (fallback: number) =>
  new Option('-n, --limit <n>', `how many (1 to ${MAX_PAGE})`).argParser(wholeNumber(1, MAX_PAGE)).default(fallback);

export const concurrencyOption = () =>
  new Option('-j, --concurrency <n>', `transfers in flight at once (1 to ${MAX_CONCURRENCY})`).argParser(wholeNumber(1, MAX_CONCURRENCY)).default(16);

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
/** Below this, a file in parts would be one part smaller than the part size: a single PUT with extra calls. */
export const MIN_MULTIPART_THRESHOLD = 2 ** 20;

/**
 * `64MiB`, `1.5GiB`, `512M`, `67108864`: a size in bytes, its units powers of 1024 (K, M, G, T, with
 * or without `iB` or `B`), any case. Undefined for anything else.
 */
export function parseByteSize(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(?:i?b)?|(b))?\s*$/i.exec(value);
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * BYTE_UNITS[(match[2] ?? match[3] ?? '').toLowerCase()]);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A multipart threshold as `--multipart-threshold` or LODE_MULTIPART_THRESHOLD give it; the reason it is refused otherwise. */
export function multipartThreshold(value: string): number {
  const bytes = parseByteSize(value);
  if (bytes === undefined || bytes < MIN_MULTIPART_THRESHOLD) throw new InvalidArgumentError('Expected a size of 1MiB or more, such as 64MiB or 2GiB.');
  return bytes;
}

export const multipartThresholdOption = () =>
  new Option(
    '--multipart-threshold <size>',
    'files of this size or more move in parts, several at once, resuming where an interrupted push or pull stopped (default: $LODE_MULTIPART_THRESHOLD, else 64MiB)',
  ).argParser(multipartThreshold);

/** `--multipart-threshold` when given, else LODE_MULTIPART_THRESHOLD, else the SDK's default (64 MiB). */
export function resolveMultipartThreshold(flag: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (flag !== undefined) return flag;
  if (!env.LODE_MULTIPART_THRESHOLD) return DEFAULT_MULTIPART_THRESHOLD;
  try {
    return multipartThreshold(env.LODE_MULTIPART_THRESHOLD);
  } catch (error) {
    throw new CliError(`LODE_MULTIPART_THRESHOLD (${env.LODE_MULTIPART_THRESHOLD}): ${(error as Error).message}`, { exitCode: EXIT.usage, code: 'usage' });
  }
}

export const batchSizeOption = () =>
  new Option('--batch-size <n>', `files per initiate/confirm call (1 to ${MAX_BATCH_SIZE}): smaller ones journal progress sooner`)
    .argParser(wholeNumber(1, MAX_BATCH_SIZE))
    .default(MAX_BATCH_SIZE);

/** The server keeps commit messages of 1 to 10,000 characters, trimmed (docs/api.md, Commits). */
export const MAX_MESSAGE = 10_000;

/** `-m`: refused before any byte moves, not by the commit after the uploads. */
export function commitMessage(value: string): string {
  const message = value.trim();
  if (message.length === 0 || message.length > MAX_MESSAGE) throw new InvalidArgumentError(`Expected a commit message of 1 to ${MAX_MESSAGE} characters.`);
  // What no request body may carry (docs/api.md, Input rules): refused here, not after the uploads.
  if (message.includes('\u0000') || hasUnpairedSurrogate(message))
    throw new InvalidArgumentError('Expected a commit message without NUL characters or unpaired surrogates.');
  return message;
}

/** `--url`: the server's base URL (settings.ts, baseUrl). */
export function serverUrl(value: string): string {
  try {
    return baseUrl(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** A quota as `lode quota set` takes it: a size (`50GiB`, `1073741824`) or `none`, which removes it. */
export function quotaValue(value: string): number | null {
  if (value.trim().toLowerCase() === 'none') return null;
  const bytes = parseByteSize(value);
  if (bytes === undefined) throw new InvalidArgumentError('Expected a size such as 50GiB or 1073741824, or none.');
  return bytes;
}
