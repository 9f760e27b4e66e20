import { LodeApiError, LodeNetworkError, type LockedFile } from '@lode/sdk';
import { plural } from './output.ts';

/** Exit codes: 0 ok, 1 error, 2 usage, 3 conflicts or locks (something a teammate holds or changed). */
export const EXIT = { ok: 0, error: 1, usage: 2, conflict: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI explains itself: what happened, what to do next, and its exit code. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(message: string, options: { exitCode?: ExitCode; code?: string; details?: Record<string, unknown> } = {}) {
    super(message);
    this.exitCode = options.exitCode ?? EXIT.error;
    this.code = options.code ?? 'error';
    this.details = options.details ?? {};
  }
}

/** A lock as a listing, a lock request's conflicts or a commit's file_locked refusal names it. */
interface HeldLock {
  path: string;
  userName: string;
  lockedAt?: string;
  /** What the holder said they are doing (lock --note); empty, or absent from an older server's refusal, when nothing. */
  note?: string;
}

/** A lock line a person can act on: which file, who holds it, since when, and why. */
export function describeLock(file: HeldLock): string {
  return `${file.path} is locked by ${file.userName}${file.lockedAt ? ` since ${file.lockedAt}` : ''}${file.note ? `: ${JSON.stringify(file.note)}` : ''}`;
}

/** An API error as the CLI reports it: a sentence that says what to do next, and the exit code. */
export function fromApiError(error: LodeApiError): CliError {
  const details = { ...error.body, status: error.status, requestId: error.requestId };
  const make = (message: string, exitCode: ExitCode = EXIT.error) => new CliError(message, { exitCode, code: error.code, details });
  switch (error.code) {
    case 'file_locked': {
      const locked = (error.body.lockedFiles as LockedFile[] | undefined) ?? [];
      const lines = locked.map((f) => `  ${describeLock(f)}`);
      return make(
        `Nothing was committed: ${plural(locked.length, 'file')} locked by teammates:\n${lines.join('\n')}\nAsk them to commit or unlock the files (an org owner or admin can run \`lode unlock --force PATH\`), then run the command again.`,
        EXIT.conflict,
      );
    }
    case 'stale_version':
      return make(
        'Nothing was committed: a teammate committed newer versions of some of these files. Run `lode pull`, resolve what it reports, then push again.',
        EXIT.conflict,
      );
    case 'merge_conflict':
      return make(`${error.message}. Merge again with --take source|target for each conflicting file.`, EXIT.conflict);
    case 'missing_key':
    case 'invalid_key':
    case 'key_revoked':
      return make(`${error.message}. Log in with a valid project key: lode login --url URL --key KEY`);
    case 'device_mismatch':
      // A CI job with LODE_KEY alone gets a new device id in each fresh container: the second run lands here.
      return make(
        `${error.message} (the first one that used it). Set LODE_DEVICE to that device's id (CI jobs must set LODE_DEVICE along with LODE_KEY), or use a key of this machine's own, or ask an operator to reset the key's device.`,
      );
    case 'not_lode_api':
      return notLodeServer(error, details);
    case 'too_many_failed_attempts':
      return make(throttledAuthentication(error));
    case 'rate_limited':
    case 'service_unavailable':
    case 'timeout':
      return make(`${error.message} (the server stayed busy through every retry; try again in a moment)`);
    default:
      return make(`${error.message} (${error.code}, HTTP ${error.status}${error.requestId ? `, request ${error.requestId}` : ''})`);
  }
}

/**
 * The gateway stopped checking credentials after repeated failures, from this address or with this
 * key (the SDK already waited out its Retry-After on each retry): say whose failures, for how long,
 * and what usually causes them.
 */
function throttledAuthentication(error: LodeApiError): string {
  const seconds = typeof error.body.retryAfterSeconds === 'number' ? ` for the next ${error.body.retryAfterSeconds} s` : ' for a while';
  if (error.body.per === 'key') {
    return `Too many failed authentications with this key: the server refuses to check it${seconds}. The key is wrong, revoked or bound to another device: log in with a valid key (\`lode login --url URL --key KEY\`), or set LODE_DEVICE to the device the key was first used on.`;
  }
  return `Too many failed authentications from this network address: the server refuses to check keys from it${seconds}. Wait, then check the key this machine uses (\`lode login --url URL --key KEY\`, or LODE_KEY): a wrong or revoked key that a program on this network keeps sending holds the address back.`;
}

/**
 * Another web server answered, or a proxy with no Lode behind it: say where, never its page. The
 * code is the one `lode login` gives a Lode server's non-API address, so scripts see one code.
 */
function notLodeServer(error: LodeApiError, details: Record<string, unknown>): CliError {
  const url = typeof error.body.url === 'string' ? error.body.url : 'this URL';
  const contentType = typeof error.body.contentType === 'string' ? ` ${error.body.contentType}` : '';
  // The statuses a proxy answers when the server behind it is down or slow.
  const proxy = [502, 503, 504].includes(error.status) ? ' If the URL is right, a proxy in front of Lode could not reach it: try again in a moment.' : '';
  return new CliError(
    `No Lode API answers at ${url} (it answered HTTP ${error.status}${contentType}, not as Lode does). Check the URL: give the server's base URL, the address of its dashboard (e.g. https://lode.example.com).${proxy}`,
    { code: 'not_a_lode_server', details },
  );
}

/**
 * For a call whose input came from the command line (a branch name, a note): the server's refusal of
 * it is a usage error, exit 2. Not for calls carrying the workspace's files, where exit 1 stays.
 */
export function refusedInput(error: unknown): never {
  if (!(error instanceof LodeApiError && error.code === 'validation_failed')) throw error;
  throw new CliError(`${error.message} (validation_failed)`, { exitCode: EXIT.usage, code: error.code, details: { ...error.body, status: error.status } });
}

/**
 * Ctrl-C: transfers in flight stopped, their partial files removed (a large file's download keeps
 * its hidden partial file, to resume from); what finished stays.
 */
export function interrupted(): CliError {
  return new CliError(
    'Interrupted (Ctrl-C). No file was left half-written. Run the same command again to go on: a push resumes from its journal without uploading confirmed files again (a large file from the parts already stored), a pull downloads what is still missing (a large file from the ranges already on disk).',
    { code: 'interrupted' },
  );
}

/** Any thrown value as a CliError. */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof LodeApiError) return fromApiError(error);
  if (error instanceof LodeNetworkError)
    return new CliError(
      `Cannot reach the server: ${error.message}. Check the URL (lode login) and your network; a push or pull run again goes on from where it stopped.`,
      { code: 'network_error' },
    );
  return new CliError(error instanceof Error ? error.message : String(error));
}
