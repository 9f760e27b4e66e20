import { check } from 'k6';
import type { Response } from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';

// Custom metrics are declared once, in the init context, as k6 requires.

/**
 * Share of operations that went wrong: unexpected statuses, failed entries, wrong answers. Expected
 * outcomes of contention (a 409 the flow provokes on purpose) count as successes here, unlike in
 * k6's http_req_failed, so the threshold on it means "Lode misbehaved".
 */
export const errorRate = new Rate('lode_errors');
/** Contention outcomes the flow expects (409 file_locked, version_conflict, stale_version), by code. */
export const expectedConflicts = new Counter('lode_expected_conflicts');
/** One whole flow iteration (a push of N files, a full sync, a lock-edit-commit, a history read). */
export const flowDuration = new Trend('lode_flow_duration', true);

/**
 * `ok`: the answer the flow wanted. `expected`: a contention refusal the flow provokes on purpose.
 * `error`: anything else.
 */
export type Outcome = 'ok' | 'expected' | 'error';

export interface Labels {
  flow: string;
  step: string;
}

const MAX_LOGGED_PER_VU = 5;
let logged = 0;

export function errorCode(res: Response): string | undefined {
  if (typeof res.body !== 'string' || !res.body.startsWith('{')) return undefined;
  try {
    const code = res.json('code');
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Logs the first few errors of each VU with the request id, which names the request in Lode's logs and traces. */
export function reportError(labels: Labels, detail: string, res?: Response): void {
  if (logged >= MAX_LOGGED_PER_VU) return;
  logged += 1;
  const requestId = res?.headers['X-Request-Id'];
  const where = res ? ` ${res.request.method} ${res.url.split('?')[0]} → ${res.status}${res.error ? ` (${res.error})` : ''}` : '';
  const body = res && typeof res.body === 'string' ? ` ${res.body.slice(0, 300)}` : '';
  console.warn(`[${labels.flow}/${labels.step}]${where} ${detail}${requestId ? ` X-Request-Id=${requestId}` : ''}${body}`);
}

/** Records one operation's outcome in lode_errors and in a check named after its step. */
export function recordOutcome(labels: Labels, outcome: Outcome, code?: string): void {
  const tags = { flow: labels.flow, step: labels.step };
  errorRate.add(outcome === 'error', tags);
  if (outcome === 'expected') expectedConflicts.add(1, { ...tags, code: code ?? 'unknown' });
  check(outcome, { [`${labels.step}: ok or expected conflict`]: (o) => o !== 'error' }, tags);
}

/** Classifies a response: a wanted status, a 409 whose code the caller expects, or an error. */
export function classify(res: Response, okStatuses: readonly number[], expectedCodes: readonly string[]): { outcome: Outcome; code: string | undefined } {
  if (okStatuses.includes(res.status)) return { outcome: 'ok', code: undefined };
  const code = errorCode(res);
  if (res.status === 409 && code !== undefined && expectedCodes.includes(code)) return { outcome: 'expected', code };
  return { outcome: 'error', code };
}

/** A wrong answer to a well-formed request: counted in lode_errors like a failed request. */
export function verify(labels: Labels, ok: boolean, detail: string): boolean {
  const tags = { flow: labels.flow, step: `${labels.step}-answer` };
  errorRate.add(!ok, tags);
  check(ok, { [`${labels.step}: answer matches what was committed`]: (right) => right }, tags);
  if (!ok) reportError(labels, detail);
  return ok;
}
