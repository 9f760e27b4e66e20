import { z } from 'zod';
import type { ErrorCode } from '@lode/errors';
import { statusByCode } from '../http/error-status.ts';
import type { Operation, RedirectOperation } from './operation.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many: the write rate limit (retry after Retry-After seconds), or open live feeds',
  500: 'Internal error',
  503: 'Unavailable; retry after Retry-After seconds',
  504: 'No answer in time; retry (with the same X-Idempotency-Key) after Retry-After seconds',
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

/** The error statuses a route may answer: those of its kind (auth, body, write limit, dependencies), then its own. */
export function errorStatuses(op: Operation | RedirectOperation): number[] {
  // A route with no auth and no bus call (health, this description) fails only by a fault of its own.
  const statuses = new Set<number>(op.auth === 'none' ? [500] : [400, 500, 503, 504]);
  if (op.auth === 'key') [401, 403, 404].forEach((s) => statuses.add(s));
  if (op.auth === 'admin') statuses.add(401);
  if (op.body) [413, 415].forEach((s) => statuses.add(s));
  if (op.write) statuses.add(429);
  for (const status of op.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}
