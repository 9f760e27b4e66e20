import { setTimeout as delay } from 'node:timers/promises';
import { readResponse, type ApiResponse } from '@lode/testkit';
import { deadlineOf } from './deadlines.ts';

/** A way the system broke its promises under faults, as a client saw it. */
export interface Finding {
  scenario: string;
  /** Milliseconds since the scenario began. */
  atMs: number;
  request: string;
  what: string;
}

/** One try of a request and what came of it, as every client reports it to whoever listens. */
export interface Answered {
  method: string;
  path: string;
  /** performance.now() when it was sent. */
  sentAt: number;
  /** The answer's status; undefined when none came (refused, cut, or past its deadline). */
  status: number | undefined;
  /** The error's code, or what happened when no answer came. */
  code: string;
}

/** Every finding of the run, by scenario; what a scenario allows (a killed gateway's refused connections). */
export class Findings {
  readonly all: Finding[] = [];
  #scenario = 'setup';
  #began = performance.now();
  readonly #listeners = new Set<(answered: Answered) => void>();
  /** Gateways the running scenario killed: a refused or cut connection to one is what a client meets then. */
  readonly downGateways = new Set<string>();
  /** When the processes the running scenario SIGKILLed had all exited. */
  killedAt: number | undefined;
  /**
   * Until when a request may have reached a process the running scenario SIGKILLed: NATS routes
   * requests to a subscriber until it has dropped that subscriber's connection, which a loaded host
   * does well after the process exited; Infinity until it has. Such a request's outcome is
   * unknown, so the gateway answers 504 `timeout` once the bus timeout passes, which is the one
   * honest answer (503 says nothing was done). A request sent later finds a live replica or none
   * (503), never the dead one.
   */
  reachesKilledUntil: number | undefined;

  begin(scenario: string): void {
    this.#scenario = scenario;
    this.#began = performance.now();
    this.downGateways.clear();
    this.killedAt = undefined;
    this.reachesKilledUntil = undefined;
    this.#listeners.clear();
  }

  get scenario(): string {
    return this.#scenario;
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.#began);
  }

  add(request: string, what: string): void {
    this.all.push({ scenario: this.#scenario, atMs: this.elapsedMs(), request, what });
  }

  of(scenario: string): Finding[] {
    return this.all.filter((f) => f.scenario === scenario);
  }

  /** Calls `listener` with every try any client makes until the returned function is called, or the next scenario begins. */
  onAnswer(listener: (answered: Answered) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  answered(answered: Answered): void {
    for (const listener of this.#listeners) listener(answered);
  }
}

/** Thrown by a call whose client was told to stop retrying: the write it carried is unacknowledged. */
export class GaveUp extends Error {}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Statuses the caller handles; any other non-retryable answer fails the call. */
  expect: readonly number[];
  /**
   * How long the client waits for one try before it tries again with the same key, when that is
   * shorter than the route's deadline: a client's own choice, so not a hang. A restore whose
   * process died is otherwise waited for as long as the gateway does (120 s).
   */
  patienceMs?: number;
}

const RETRY_WAIT_MS = 250;
const MAX_RETRY_AFTER_MS = 2000;

/**
 * The API as a client behind a load balancer calls it during faults: each try goes to the next
 * gateway with the route's deadline (deadlines.ts), and every answer is held to these rules
 * before anything else — JSON `{ code, message }` for every error, 5xx only as 503 with
 * Retry-After, nothing past its deadline. A broken rule is a finding; the call goes on. Retryable
 * answers (503, 504, 429, 409 idempotency_in_progress, a lost connection, a hang) are tried again
 * with the same headers, so the same X-Idempotency-Key, until `giveUp()` says the run is over.
 */
export class ObservedClient {
  readonly #gateways: readonly string[];
  readonly #headers: Record<string, string>;
  readonly #findings: Findings;
  readonly #giveUp: () => boolean;
  #next = 0;
  /** Tries repeated, by reason. */
  readonly retried = new Map<string, number>();

  constructor(gateways: readonly string[], headers: Record<string, string>, findings: Findings, giveUp: () => boolean) {
    this.#gateways = gateways;
    this.#headers = headers;
    this.#findings = findings;
    this.#giveUp = giveUp;
  }

  /** One try, through the next gateway; undefined when no answer came (refused, cut, or past its deadline). */
  async once<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    patienceMs = Infinity,
  ): Promise<ApiResponse<T> | undefined> {
    const gateway = this.#gateways[this.#next++ % this.#gateways.length];
    const what = `${method} ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')}`;
    const deadline = deadlineOf(method, path);
    const impatient = patienceMs < deadline;
    const sentAt = performance.now();
    try {
      const response = await fetch(gateway + path, {
        method,
        headers: { ...this.#headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(impatient ? patienceMs : deadline),
      });
      // Read inside the try: a body cut short by a dying process is a lost answer too.
      const res = await readResponse<T>(response);
      this.#judge(what, res, sentAt);
      this.#findings.answered({ method, path, sentAt, status: res.status, code: codeOf(res) });
      return res;
    } catch (error) {
      const name = (error as Error).name;
      this.#findings.answered({ method, path, sentAt, status: undefined, code: `${name}: ${(error as Error).message} ${causeOf(error)}`.trim() });
      if (name === 'TimeoutError' && impatient) {
        this.#count('client gave up a try');
        return undefined;
      }
      if (name === 'TimeoutError') this.#findings.add(what, `no answer within its ${deadline} ms deadline (hung)`);
      else if (!this.#findings.downGateways.has(gateway) && !cutStream(method, path, error))
        this.#findings.add(what, `connection failed: ${(error as Error).message} ${causeOf(error)}`);
      this.#count(name === 'TimeoutError' ? 'hung' : cutStream(method, path, error) ? 'sync cut mid-stream' : 'network');
      return undefined;
    }
  }

  /** Tries until an answer whose status is in `expect`, retrying what a client retries. */
  async call<T = unknown>(method: string, path: string, body: unknown, options: CallOptions): Promise<ApiResponse<T>> {
    for (;;) {
      const res = await this.once<T>(method, path, body, options.headers, options.patienceMs);
      if (res && options.expect.includes(res.status)) return res;
      if (res && !retryable(res)) throw new Error(`${method} ${path}: unexpected ${res.status} ${JSON.stringify(res.body)}`);
      if (res) this.#count(`${res.status} ${codeOf(res)}`);
      if (this.#giveUp()) throw new GaveUp(`${method} ${path}: given up at the end of the run; last ${res ? `${res.status} ${codeOf(res)}` : 'no answer'}`);
      const retryAfter = Number(res?.headers.get('retry-after') ?? 0) * 1000;
      await delay(Math.min(Math.max(retryAfter, RETRY_WAIT_MS), MAX_RETRY_AFTER_MS));
    }
  }

  /**
   * The rules for an answer under faults: JSON everywhere, `{ code, message }` on errors, 5xx only as
   * 503 with Retry-After. The one exception is a 504 `timeout` (with Retry-After too) for a
   * request sent before NATS dropped the connections of the processes a scenario SIGKILLed
   * (Findings.reachesKilledUntil): it may have been in one's hands, and then its outcome is unknown.
   */
  #judge(what: string, res: ApiResponse, sentAt: number): void {
    const body = res.body as { code?: unknown; message?: unknown } | undefined;
    if (typeof body !== 'object' || body === null) {
      this.#findings.add(what, `${res.status} with a body that is not JSON: ${String(res.body).slice(0, 200)}`);
      return;
    }
    if (res.status < 400) return;
    if (typeof body.code !== 'string' || typeof body.message !== 'string')
      this.#findings.add(what, `${res.status} without { code, message }: ${JSON.stringify(body).slice(0, 200)}`);
    const reachedKilledUntil = this.#findings.reachesKilledUntil;
    const mayHaveReachedKilled = res.status === 504 && body.code === 'timeout' && reachedKilledUntil !== undefined && sentAt <= reachedKilledUntil;
    if (res.status >= 500 && res.status !== 503 && !mayHaveReachedKilled)
      this.#findings.add(what, `${res.status} ${String(body.code)} (only 503 is allowed): ${String(body.message)}`);
    if (res.status >= 500 && !(Number(res.headers.get('retry-after')) >= 1)) this.#findings.add(what, `${res.status} ${String(body.code)} without Retry-After`);
  }

  #count(reason: string): void {
    this.retried.set(reason, (this.retried.get(reason) ?? 0) + 1);
  }
}

/**
 * Sync streams its answer: a failure after the first bytes cuts the connection, so the client
 * cannot take a truncated body for a whole one (docs/api.md, Sync, Streaming). That is its
 * documented error, not a finding; a refused connection is still one.
 */
function cutStream(method: string, path: string, error: unknown): boolean {
  return method === 'POST' && path.endsWith('/sync') && ((error as Error).cause as { code?: string } | undefined)?.code === 'UND_ERR_SOCKET';
}

function retryable(res: ApiResponse): boolean {
  return [429, 502, 503, 504].includes(res.status) || (res.status === 409 && codeOf(res) === 'idempotency_in_progress');
}

function codeOf(res: ApiResponse): string {
  const code = (res.body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

function causeOf(error: unknown): string {
  const code = ((error as Error).cause as { code?: string } | undefined)?.code;
  return code ? `(${code})` : '';
}
