import { ApiVerbs, readResponse, type ApiResponse } from './client.ts';

export interface RetryPolicy {
  /** Tries per call, the first included. */
  attempts: number;
  /** How long one try may take before the client gives up on it, as a client's socket timeout would. */
  timeoutMs: number;
  /** Wait before the second try; doubles per try, up to 2 s (a Retry-After header wins). */
  backoffMs: number;
}

/** Why a try was repeated: a status, a `409 <code>`, or the error that ended it (e.g. `TimeoutError`). */
export type RetryReason = string;

/** One try of a call as the client saw it: the answer (status and body), or the error that ended it. */
export interface TryOutcome {
  method: string;
  path: string;
  /** The gateway this try went to. */
  gateway: string;
  /** 1 for the first try. */
  attempt: number;
  status?: number;
  body?: unknown;
  error?: string;
  /** Whether the client tries again after this one. */
  retrying: boolean;
}

const DEFAULT_POLICY: RetryPolicy = { attempts: 12, timeoutMs: 20_000, backoffMs: 100 };

/**
 * The API as a real client calls it through a load balancer while replicas die: a connection error,
 * a timeout, 502/503/504, 429 or 409 `idempotency_in_progress` is tried again, through the next
 * gateway, with the same headers (so the same X-Idempotency-Key). Any other answer is returned,
 * including a 500: a bug must reach the test, not be retried away.
 */
export class RetryingClient extends ApiVerbs {
  readonly #gateways: readonly string[];
  readonly #headers: Record<string, string>;
  readonly #policy: RetryPolicy;
  readonly #onTry: ((outcome: TryOutcome) => void) | undefined;
  #next = 0;
  /** Every repeated try so far, by reason. */
  readonly retried = new Map<RetryReason, number>();

  /** onTry: told of every try as it ends, so a test can show what each one answered. */
  constructor(gatewayUrls: readonly string[], headers: Record<string, string>, policy: Partial<RetryPolicy> = {}, onTry?: (outcome: TryOutcome) => void) {
    super();
    this.#gateways = gatewayUrls;
    this.#headers = headers;
    this.#policy = { ...DEFAULT_POLICY, ...Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined)) };
    this.#onTry = onTry;
  }

  /** The gateway the next call starts at: calls alternate between them. */
  #pickGateway(): number {
    return this.#next++ % this.#gateways.length;
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const first = this.#pickGateway();
    let last = '';
    for (let attempt = 0; attempt < this.#policy.attempts; attempt++) {
      const gateway = this.#gateways[(first + attempt) % this.#gateways.length];
      const url = gateway + path;
      const tried = { method, path, gateway, attempt: attempt + 1 };
      const retrying = attempt + 1 < this.#policy.attempts;
      let reason: RetryReason;
      let waitMs = Math.min(this.#policy.backoffMs * 2 ** attempt, 2000);
      try {
        const response = await this.#once<T>(method, url, body, headers);
        reason = retryReason(response);
        this.#onTry?.({ ...tried, status: response.status, body: response.body, retrying: reason !== '' && retrying });
        if (!reason) return response;
        const retryAfter = Number(response.headers.get('retry-after'));
        if (retryAfter > 0) waitMs = Math.min(retryAfter * 1000, 5000);
        last = `${response.status} ${JSON.stringify(response.body)}`;
      } catch (error) {
        reason = (error as Error).name === 'TimeoutError' ? 'TimeoutError' : `${(error as Error).message}${causeCode(error)}`;
        this.#onTry?.({ ...tried, error: reason, retrying });
        last = reason;
      }
      this.retried.set(reason, (this.retried.get(reason) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    throw new Error(`${method} ${path}: no answer but retryable ones after ${this.#policy.attempts} tries; last: ${last}`);
  }

  async #once<T>(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<ApiResponse<T>> {
    const response = await fetch(url, {
      method,
      headers: { ...this.#headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.#policy.timeoutMs),
    });
    // Read inside the try: a streamed body (sync) cut short by a dying process is a failed try too.
    return readResponse<T>(response);
  }
}

function retryReason(response: ApiResponse): RetryReason {
  const code = (response.body as { code?: unknown } | undefined)?.code;
  if ([429, 502, 503, 504].includes(response.status)) return `${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
  if (response.status === 409 && code === 'idempotency_in_progress') return '409 idempotency_in_progress';
  return '';
}

function causeCode(error: unknown): string {
  const code = ((error as Error).cause as { code?: string } | undefined)?.code;
  return code ? ` (${code})` : '';
}
