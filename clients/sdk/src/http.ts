import type { IncomingMessage } from 'node:http';
import { asNetworkError, LodeApiError, LodeNetworkError } from './errors.ts';
import { answerOf, readText, requestFor, timedOut } from './node-http.ts';
import { DEFAULT_RETRY, isRetryableStatus, retryDelayMs, sleep, type RetryPolicy } from './retry.ts';

export interface ConnectionOptions {
  /** The server's base URL, e.g. `https://lode.example.com`. */
  url: string;
  /** A project key (`lode_…`); LodeAdminClient puts the admin token here. */
  key: string;
  /** Sent as `X-Device-Id`: a key binds to the first device that uses it. */
  deviceId?: string;
  retry?: Partial<RetryPolicy>;
  /** Told before each retry, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  idempotencyKey?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent besides the key and device headers (e.g. `Last-Event-ID`). */
  headers?: Record<string, string>;
  /**
   * `false` for a write that, sent twice, does its work twice (each one makes a new user or key):
   * only a 429 is retried, since the server refuses it before doing anything; after a lost answer
   * or a 5xx it may have been done, so the error is thrown at once for the caller to look first.
   */
  repeatable?: boolean;
}

/**
 * How long a call with an idempotency key waits for the same key's running request: longer than the
 * gateway waits for a draft's commit (10½ minutes), the slowest write of the API.
 */
const IN_PROGRESS_WAIT_MS = 15 * 60_000;
/** Polls of a running request back off like a third retry: 1 s ceiling at the default policy. */
const IN_PROGRESS_BACKOFF_STEP = 3;
/**
 * A connection silent this long is given up and the call retried: shorter than a large draft commit
 * may take, whose retry, with the same idempotency key, then waits for the first request's result.
 */
const SILENCE_TIMEOUT_MS = 5 * 60_000;

/** JSON calls to the API with the key and device headers, retried as `RetryPolicy` says. */
export class ApiTransport {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly #headers: Record<string, string>;
  readonly #onRetry: ((event: RetryEvent) => void) | undefined;

  constructor(options: ConnectionOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#headers = { authorization: `Bearer ${options.key}`, accept: 'application/json' };
    if (options.deviceId) this.#headers['x-device-id'] = options.deviceId;
    this.#onRetry = options.onRetry;
  }

  async call<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    const response = await this.request(method, path, body, options);
    const answer = await readJson(response, options.signal);
    // A success that is not JSON (a web app answering every path with its HTML page) is no Lode answer.
    if (!answer) throw notLodeApi(response, this.baseUrl);
    return answer as T;
  }

  /**
   * A successful answer with its body unread (a stream, such as the live feed); retried as `call` is.
   * The caller reads the body to its end or destroys it, which gives the connection back.
   */
  async request(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<IncomingMessage> {
    const url = this.baseUrl + path + queryString(options.query);
    const headers: Record<string, string> = { ...this.#headers, ...options.headers };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (options.idempotencyKey) headers['x-idempotency-key'] = options.idempotencyKey;
    const started = performance.now();
    // Failed tries so far; polls of a running request (below) are not failures.
    let failures = 0;
    for (;;) {
      let response: IncomingMessage;
      try {
        response = await send(url, method, headers, payload, options.signal);
      } catch (error) {
        // A lost connection: every write of this API is safe to send again (confirm is idempotent,
        // commits and restores carry an idempotency key), so it is retried like a 503.
        if (!(error instanceof LodeNetworkError) || options.repeatable === false || ++failures >= this.retry.attempts) throw error;
        await this.#wait(method, path, failures, null, (error as Error).message, options.signal);
        continue;
      }
      const status = response.statusCode ?? 0;
      if (status >= 200 && status <= 299) return response;
      const failure = await apiError(response, this.baseUrl);
      const retryAfter = header(response, 'retry-after');
      const reason = `${status} ${failure.code}`;
      // The same key's first request is still running (a million-file commit takes minutes): its
      // result is what this call returns, so it is polled for as long as the server may run it,
      // without spending the attempts meant for failures.
      if (failure.code === 'idempotency_in_progress' && performance.now() - started < IN_PROGRESS_WAIT_MS) {
        await this.#wait(method, path, IN_PROGRESS_BACKOFF_STEP, retryAfter, reason, options.signal);
        continue;
      }
      const retryable = isRetryableStatus(status, failure.code) && (options.repeatable !== false || status === 429);
      if (!retryable || ++failures >= this.retry.attempts) throw failure;
      await this.#wait(method, path, failures, retryAfter, reason, options.signal);
    }
  }

  async #wait(method: string, path: string, attempt: number, retryAfter: string | null, reason: string, signal?: AbortSignal): Promise<void> {
    const delayMs = retryDelayMs(this.retry, attempt, retryAfter);
    this.#onRetry?.({ method, path, attempt, delayMs, reason });
    await sleep(delayMs, signal);
  }
}

/**
 * One try, on node:http rather than fetch: loading Node's fetch costs a command of the CLI more than
 * its whole round trip to a local server. A failure to connect or a silent connection is a
 * LodeNetworkError; the caller's abort rejects with the signal's reason, as fetch's did. A URL or
 * header node:http refuses throws as it is: no retry would change it.
 */
async function send(url: string, method: string, headers: Record<string, string>, payload: Buffer | undefined, signal?: AbortSignal): Promise<IncomingMessage> {
  const request = requestFor(url, method, headers, signal);
  request.setTimeout(SILENCE_TIMEOUT_MS, () => request.destroy(timedOut(`no answer within ${SILENCE_TIMEOUT_MS / 1000} s`)));
  const answered = answerOf(request);
  request.end(payload);
  try {
    return await answered;
  } catch (error) {
    throw asNetworkError(error, signal);
  }
}

const header = (response: IncomingMessage, name: string): string | null => {
  const value = response.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

function queryString(query: CallOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The body parsed (an empty body: `{}`; a bare JSON value: `{ value }`), or null when it is not JSON. */
async function readJson(response: IncomingMessage, signal?: AbortSignal): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readText(response);
  } catch (error) {
    throw asNetworkError(error, signal);
  }
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    return null;
  }
}

/**
 * Every error of the Lode API is a JSON object with a string `code` and `message`. Anything else
 * came from another server at that URL (a web server, a proxy's error page): it is `not_lode_api`,
 * keeping the status (a proxy's 503 is retried as any 503 is) but never the body, which may be a
 * whole HTML page.
 */
async function apiError(response: IncomingMessage, baseUrl: string): Promise<LodeApiError> {
  const json = await readJson(response);
  if (!json || typeof json.code !== 'string' || typeof json.message !== 'string') return notLodeApi(response, baseUrl);
  return new LodeApiError(response.statusCode ?? 0, json, requestId(response));
}

function notLodeApi(response: IncomingMessage, baseUrl: string): LodeApiError {
  const status = response.statusCode ?? 0;
  const contentType = header(response, 'content-type')?.split(';')[0].trim() || null;
  // The API never redirects: a redirect is a proxy's or a load balancer's (http to https, say), and
  // is not followed, since the key would go wherever it points. Where it points is the hint.
  const location = status >= 300 && status <= 399 ? header(response, 'location') : null;
  const message = `No Lode API answers at ${baseUrl} (HTTP ${status}${contentType ? `, ${contentType}` : ''}${location ? `, redirecting to ${location}` : ''})`;
  return new LodeApiError(status, { code: 'not_lode_api', message, url: baseUrl, contentType }, requestId(response));
}

const requestId = (response: IncomingMessage) => header(response, 'x-request-id');
