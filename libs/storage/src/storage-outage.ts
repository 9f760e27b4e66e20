import { errors, isAppError } from '@lode/errors';

/** The connection to the store was refused, cut, or never opened. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
/** Answers and SDK errors that mean "not now": a timeout, throttling, or the store's own trouble. */
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'SlowDown', 'ServiceUnavailable', 'InternalError', 'Throttling', 'ThrottlingException']);

/**
 * Whether a storage call failed because the store is down, overloaded or too slow, rather than
 * because of what was asked: such a failure is retryable and changed nothing.
 */
export function isStorageOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || isAppError(error)) return false;
  const e = error as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  return (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) || (typeof e.code === 'string' && NETWORK_CODES.has(e.code));
}

/**
 * A storage outage as 503 `service_unavailable` (Retry-After: 1), so the client retries instead of
 * reading a 500 as a bug; anything else unchanged. The store's own error stays as the cause.
 */
export function asStorageOutage(error: unknown): unknown {
  return isStorageOutage(error) ? Object.assign(errors.serviceUnavailable('storage'), { cause: error }) : error;
}
