/** How often and how long a call is retried: statuses that say "try again later" and lost connections. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** First backoff; doubled on each retry, with jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 250, maxDelayMs: 20_000 };

/** 429 (write budget spent), 503 (a service or storage briefly away), 502/504 (timeouts): the request did nothing or is safe to repeat. */
export function isRetryableStatus(status: number, code?: string): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504 || code === 'idempotency_in_progress';
}

/**
 * The wait before retry number `retry` (1 for the first). A `Retry-After` in seconds (429, 503 and
 * 504 carry one) is honoured as given, capped by `maxDelayMs`; otherwise exponential backoff with
 * full jitter, so many clients refused at once do not come back at once.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfter: string | null, random: () => number = Math.random): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  const ceiling = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
