import { InvalidArgumentError, Option } from 'commander';
import { hasUnpairedSurrogate } from '@lode/sdk';
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
