import { z } from 'zod';
import type { ErrorCode } from '@lode/errors';
import { needsCsrfToken } from '../auth/session-cookie.ts';
import { statusByCode } from '../http/error-status.ts';
import { BODY_REFUSALS } from '../http/request-guards.ts';
import type { Operation, OperationGroup, RedirectOperation } from './operation.ts';
import { namesById } from './path-params.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone for good',
  413: 'Too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many: the write rate limit, open live feeds, or failed authentications (retry after Retry-After seconds)',
  500: 'Internal error',
  503: 'Unavailable; retry after Retry-After seconds',
  504: 'No answer in time; retry (with the same X-Idempotency-Key) after Retry-After seconds',
  507: "Past the project's storage quota",
};

/** The codes the gateway's one status table (http/error-status.ts) maps to a status. */
function codesOf(status: number): ErrorCode[] {
  return (Object.entries(statusByCode) as [ErrorCode, number][]).filter(([, s]) => s === status).map(([code]) => code);
}

/**
 * Every error body is `{ code, message }` plus fields some codes add (docs/api.md, Errors); the code
 * is one of those the status table maps to this status.
 */
function errorBody(status: number): z.ZodType {
  return z
    .looseObject({ code: z.enum(codesOf(status)), message: z.string() })
    .meta({ description: 'Error: `code` says what failed, `message` says it for a person; some codes add fields (docs/api.md, Errors).' });
}

export function errorResponse(status: number): { description: string; content: { 'application/json': { schema: z.ZodType } } } {
  const codes = codesOf(status);
  if (codes.length === 0) throw new Error(`No error code answers ${status} (services/gateway/src/http/error-status.ts)`);
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
    content: { 'application/json': { schema: errorBody(status) } },
  };
}

/**
 * The error statuses a route may answer, each taken from where the gateway decides it: the body
 * guards in front of it (a body sent even to a GET is refused there), its authentication, the ids in
 * its path, the write limit, the bus behind it, then what its service decides (`op.errors`).
 */
export function errorStatuses(op: Operation | RedirectOperation, group: Pick<OperationGroup, 'beforeBodyGuards'>): number[] {
  const statuses = new Set<number>([statusByCode.internal]);
  const add = (...codes: ErrorCode[]) => codes.forEach((code) => statuses.add(statusByCode[code]));
  if (!group.beforeBodyGuards) add(...BODY_REFUSALS);
  // A route with no auth makes no bus call unless it says so (health, this description, the session options).
  if (op.auth !== 'none') add('service_unavailable', 'timeout');
  if (op.auth === 'key') add('missing_key', 'device_mismatch', 'not_found', 'too_many_failed_attempts');
  if (op.auth === 'admin') add('unauthorized', 'too_many_failed_attempts');
  if (op.auth === 'session') {
    add('unauthorized');
    if (needsCsrfToken(op.method)) add('forbidden');
  }
  if (namesById(op.path)) add('not_found');
  if (op.write) add('rate_limited');
  for (const status of op.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}
