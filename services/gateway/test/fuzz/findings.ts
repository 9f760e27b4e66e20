import type { FuzzRequest, Outcome } from './send.ts';

/** One request the fuzz sent and what came back; bodies are cut to their start so 10,000 of them stay small. */
export interface Exchange {
  run: number;
  requestId: string;
  request: FuzzRequest;
  bodyLength: number;
  outcome: Outcome;
  /** Judged on the whole answer, before it was cut. */
  problem: string | undefined;
}

const KEPT_BYTES = 2000;

export function exchangeOf(run: number, requestId: string, request: FuzzRequest, outcome: Outcome): Exchange {
  const cut = (bytes: Buffer) => Buffer.from(bytes.subarray(0, KEPT_BYTES));
  return {
    run,
    requestId,
    request: { ...request, body: request.body && cut(request.body) },
    bodyLength: request.body?.length ?? 0,
    outcome: 'error' in outcome ? outcome : { ...outcome, body: cut(outcome.body) },
    problem: problemOf(request, outcome),
  };
}

/** What is wrong with an answer, if anything: a 5xx, no answer, or a 4xx without a JSON `{message, code}`. */
export function problemOf(request: FuzzRequest, outcome: Outcome): string | undefined {
  if ('error' in outcome) return `no answer: ${outcome.error}`;
  // Readiness answers 503 while a service is slow to answer its ping (a loaded machine): that is
  // what the probe is for, and no input makes it. The processes' health after the run is checked apart.
  if (outcome.status === 503 && request.route.startsWith('GET /readyz')) return undefined;
  const code = errorBody(outcome.body)?.code;
  // Past the project's storage quota (which a quota request of the fuzz may have set low) an upload
  // is refused with 507 quota_exceeded: a refusal of the input, in the 5xx range by HTTP's choice.
  if (outcome.status === 507 && code === 'quota_exceeded') return undefined;
  if (outcome.status >= 500) return `${outcome.status} ${code ?? snippet(outcome.body)}`;
  if (outcome.status >= 400 && request.method !== 'HEAD' && typeof code !== 'string') {
    return `${outcome.status} without a JSON {message, code} body: ${snippet(outcome.body) || '(empty)'}`;
  }
  return undefined;
}

/**
 * Failures that do not depend on the route, reported once: Node's own answer to a request it
 * cannot parse (a bare status line, while every app answer has X-Request-Id or a Content-Type), and
 * refused connections, which only follow a server that stopped listening.
 */
function routeIndependentCause(outcome: Outcome): string | undefined {
  if ('error' in outcome) return outcome.error.startsWith('ECONNREFUSED') ? 'any route: the server refused the connection (has it stopped?)' : undefined;
  const bare = outcome.headers['x-request-id'] === undefined && outcome.headers['content-type'] === undefined;
  return bare ? 'any route: refused by Node’s HTTP parser before the app saw it' : undefined;
}

function errorBody(body: Buffer): { code: string; message: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString());
    const { code, message } = (parsed ?? {}) as { code?: unknown; message?: unknown };
    return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
  } catch {
    return undefined;
  }
}

function snippet(bytes: Buffer | string, max = 300): string {
  const text = String(bytes).replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

/** Ids, hex digests and long numbers made alike, so one cause met with different values is one class. */
function generalize(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\b[0-9a-f]{16,}\b/gi, '<hex>')
    .replace(/fuzz-[\w-]+-\d+/g, '<request>')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\d{4,}/g, '<n>');
}

/** The errors the processes logged, by the request id they were logged under; lines of no fuzz request apart. */
export interface LoggedErrors {
  byRequest: Map<string, string[]>;
  unattributed: string[];
}

/** Error and fatal lines (pino level ≥ 50) of the processes' output. */
export function loggedErrors(outputs: readonly { name: string; output: string }[]): LoggedErrors {
  const byRequest = new Map<string, string[]>();
  const unattributed: string[] = [];
  for (const { name, output } of outputs) {
    for (const line of output.split('\n')) {
      if (!line.startsWith('{')) continue;
      let entry: { level?: number; msg?: string; request_id?: string; err?: { type?: string; message?: string; code?: string } };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if ((entry.level ?? 0) < 50) continue;
      const err = entry.err ? ` — ${entry.err.type ?? 'Error'}${entry.err.code ? ` ${entry.err.code}` : ''}: ${entry.err.message ?? ''}` : '';
      const text = `[${name}] ${entry.msg ?? ''}${err}`;
      if (entry.request_id) byRequest.set(entry.request_id, [...(byRequest.get(entry.request_id) ?? []), text]);
      else unattributed.push(text);
    }
  }
  return { byRequest, unattributed };
}

/** Enough to fix a broken server by; a report longer than this would bury its first lines. */
const MAX_CLASSES = 100;

interface FindingClass {
  route: string;
  problem: string;
  cause: string;
  count: number;
  first: Exchange;
}

/**
 * The problems of a run, one line per class (route, problem, logged cause), each with its first
 * request: what a developer needs to reproduce and fix it. Empty when there is none.
 */
export function reportFindings(exchanges: readonly Exchange[], logs: LoggedErrors, replay: (run: number) => string): string {
  const classes = new Map<string, FindingClass>();
  for (const exchange of exchanges) {
    const logged = logs.byRequest.get(exchange.requestId) ?? [];
    const problem = exchange.problem ?? (logged.length > 0 ? 'answered, but an error was logged' : undefined);
    if (!problem) continue;
    const cause = logged.length > 0 ? generalize(logged.join(' | ')) : '(nothing logged)';
    const route = routeIndependentCause(exchange.outcome) ?? exchange.request.route;
    const key = `${route}\n${generalize(problem)}\n${cause}`;
    const found = classes.get(key);
    if (found) found.count++;
    else classes.set(key, { route, problem: generalize(problem), cause, count: 1, first: exchange });
  }
  const unattributed = [...new Set(logs.unattributed.map(generalize))];
  if (classes.size === 0 && unattributed.length === 0) return '';
  const sorted = [...classes.values()].sort((a, b) => `${a.cause}${a.problem}${a.route}`.localeCompare(`${b.cause}${b.problem}${b.route}`));
  const lines = sorted.slice(0, MAX_CLASSES).map(({ route, problem, cause, count, first }) => {
    const { request, outcome, bodyLength } = first;
    const answer = 'error' in outcome ? outcome.error : `${outcome.status} ${snippet(outcome.body)}`;
    return [
      `• ${route} — ${problem} — ${count}× — logged: ${cause}`,
      `    first: run ${first.run} (${replay(first.run)}), ${request.mutation}`,
      `    request: ${request.method} ${snippet(request.target, 200)} ${snippet(JSON.stringify(request.headers), 300)} body (${bodyLength} bytes): ${request.body ? snippet(request.body, 300) : '(none)'}`,
      `    answer: ${answer}`,
    ].join('\n');
  });
  const more = sorted.length > MAX_CLASSES ? [`… and ${sorted.length - MAX_CLASSES} more classes`] : [];
  const stray = unattributed.map((line) => `• logged outside any request: ${snippet(line, 500)}`);
  return [...lines, ...more, ...stray].join('\n');
}

/** Requests and statuses per route: shows the fuzz reached past validation (2xx, 404, 409, 422) and not only 400s. */
export function coverage(exchanges: readonly Exchange[]): string {
  const byRoute = new Map<string, Map<string, number>>();
  for (const { request, outcome } of exchanges) {
    const statuses = byRoute.get(request.route) ?? new Map<string, number>();
    const status = 'error' in outcome ? 'no answer' : String(outcome.status);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    byRoute.set(request.route, statuses);
  }
  return [...byRoute.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([route, statuses]) =>
        `${route}: ${[...statuses.entries()]
          .sort()
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    )
    .join('\n');
}
