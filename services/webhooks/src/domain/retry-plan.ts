/** What one delivery attempt came to (domain/sender.ts). */
export type AttemptResult =
  | { kind: 'answered'; status: number; retryAfter: string | null }
  /**
   * No answer in time, or the connection failed: retried. `error` is what the delivery log shows;
   * `detail`, which may name internal addresses, goes to the operator's log only.
   */
  | { kind: 'unreachable'; error: string; detail?: string }
  /** The address is not allowed (private) or the URL cannot be sent to: not retried. */
  | { kind: 'refused'; error: string; detail?: string };

export type Settlement =
  | { status: 'delivered'; lastStatus: number }
  | { status: 'pending'; lastStatus: number | null; error: string; nextAttemptAt: Date }
  | { status: 'failed'; lastStatus: number | null; error: string; disableWebhook: boolean };

export interface RetryPolicy {
  baseMs: number;
  /** Retries stop once the next attempt would start this long after the delivery was created. */
  windowMs: number;
}

/** No two retries of one delivery are further apart than this, however many came before. */
const MAX_DELAY_MS = 3_600_000;

/**
 * Exponential backoff with jitter: base, 2·base, 4·base … capped at an hour, each scaled by a factor
 * in [0.5, 1) so endpoints recovering from an outage are not hit by every sender at once.
 */
export function backoffMs(policy: RetryPolicy, attempts: number, random: number): number {
  const exponential = Math.min(MAX_DELAY_MS, policy.baseMs * 2 ** Math.min(attempts - 1, 30));
  return Math.round(exponential * (0.5 + random / 2));
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: Date): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * The Standard Webhooks rules as docs/api.md states them: a 2xx is delivered; timeouts, connection
 * failures, 5xx and 429 are retried with backoff (a longer Retry-After is honoured) until the window ends;
 * a 410 disables the endpoint; any other answer fails the delivery at once.
 */
export function settleAttempt(
  result: AttemptResult,
  context: { attempts: number; createdAt: Date; now: Date; policy: RetryPolicy; random: number },
): Settlement {
  if (result.kind === 'refused') return { status: 'failed', lastStatus: null, error: result.error, disableWebhook: false };
  const lastStatus = result.kind === 'answered' ? result.status : null;
  if (result.kind === 'answered') {
    if (result.status >= 200 && result.status < 300) return { status: 'delivered', lastStatus: result.status };
    if (result.status === 410) return { status: 'failed', lastStatus, error: 'The endpoint answered 410 Gone: webhook disabled', disableWebhook: true };
    if (result.status !== 429 && result.status < 500)
      return { status: 'failed', lastStatus, error: `The endpoint answered ${result.status}`, disableWebhook: false };
  }
  const error = result.kind === 'answered' ? `The endpoint answered ${result.status}` : result.error;
  // A Retry-After may push the retry later, never sooner than the backoff: `0` (or a date already
  // past) from a struggling endpoint would otherwise have the worker resend at once, in a loop.
  const asked = result.kind === 'answered' ? (retryAfterMs(result.retryAfter, context.now) ?? 0) : 0;
  const delayMs = Math.max(asked, backoffMs(context.policy, context.attempts, context.random));
  const nextAttemptAt = new Date(context.now.getTime() + delayMs);
  if (nextAttemptAt.getTime() - context.createdAt.getTime() > context.policy.windowMs) {
    return {
      status: 'failed',
      lastStatus,
      error: `${error}; given up after retrying for ${Math.round(context.policy.windowMs / 3_600_000)} h`,
      disableWebhook: false,
    };
  }
  return { status: 'pending', lastStatus, error, nextAttemptAt };
}
