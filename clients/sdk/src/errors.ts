/**
 * An answer of the Lode API that is not a success: its status, `code` and the whole JSON body. An
 * answer that is not the API's own (an HTML page, another server's JSON) has the code `not_lode_api`,
 * its status, and a body of the SDK's making: `{ code, message, url, contentType }`.
 */
export class LodeApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;
  readonly requestId: string | null;

  constructor(status: number, body: Record<string, unknown>, requestId: string | null) {
    const message = typeof body.message === 'string' ? body.message : `HTTP ${status}`;
    super(message);
    this.name = 'LodeApiError';
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : `http_${status}`;
    this.body = body;
    this.requestId = requestId;
  }
}

/**
 * The server refused the request (a lock, a stale version, bad input…): it did nothing. Not a 5xx
 * or a lost answer, and not `idempotency_in_progress` (the same key's request may still land).
 */
export function isRefusal(error: unknown): error is LodeApiError {
  // Not a 2xx either: a success whose body is not the API's (not_lode_api) may have done its work.
  return error instanceof LodeApiError && error.status >= 400 && error.status < 500 && error.code !== 'idempotency_in_progress';
}

/**
 * The API could not be reached, or its answer was cut off: no connection, no such host, a reset, or
 * no answer within the transport's timeout. `code` is the system's (`ECONNREFUSED`, `ENOTFOUND`…)
 * when it gave one. A write may or may not have been done.
 */
export class LodeNetworkError extends Error {
  readonly code: string | undefined;

  constructor(cause: Error & { code?: string }) {
    // A host with several addresses, all refusing, fails with an AggregateError of no message of its own.
    const reasons = cause instanceof AggregateError ? (cause.errors as Error[]).map((e) => e.message).filter(Boolean) : [];
    super(cause.message || reasons.join('; ') || cause.code || String(cause), { cause });
    this.name = 'LodeNetworkError';
    this.code = cause.code;
  }
}

/**
 * What a failure of the connection is to the caller: the signal's reason when the caller aborted
 * (as fetch rejected), an abort as it is, any other error a LodeNetworkError.
 */
export function asNetworkError(error: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  return !(error instanceof Error) || error.name === 'AbortError' ? error : new LodeNetworkError(error);
}

/** A transfer to or from object storage that failed (status, or bytes that do not match). */
export class LodeTransferError extends Error {
  readonly path: string;
  readonly status: number | null;
  /** The store's `Retry-After` (a 503 SlowDown may carry one), honoured by the transfer's retry. */
  readonly retryAfter: string | null;

  constructor(path: string, message: string, status: number | null = null, retryAfter: string | null = null) {
    super(`${path}: ${message}`);
    this.name = 'LodeTransferError';
    this.path = path;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** Why one file of an upload or download flow failed; the others carry on. */
export interface FileFailure {
  path: string;
  code: string;
  message: string;
}
