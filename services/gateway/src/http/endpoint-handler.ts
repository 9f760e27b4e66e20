import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { uuid, type Endpoint, type HttpAuth } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Authenticator } from '../auth/authenticator.ts';
import { actorOf } from '../auth/middleware.ts';
import { sessionOf } from '../auth/sessions.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { parse, parseBatch } from './parse.ts';

export const pathParamNames = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');

/** Parameters the middleware before a route already checked: a key route's project is the key's. */
const checkedBefore = (auth: HttpAuth, name: string) => auth === 'key' && name === 'projectId';

function readParams(endpoint: Endpoint, req: Request): Record<string, unknown> {
  const { http } = endpoint;
  const params: Record<string, unknown> = {};
  for (const name of pathParamNames(http.path)) {
    if (checkedBefore(http.auth, name)) continue;
    const value = req.params[name];
    const named = http.notFound?.[name];
    const schema = (http.params as Record<string, z.ZodType> | undefined)?.[name];
    if (schema) params[name] = parse(schema, value, name);
    else if (named === undefined) params[name] = parse(uuid, value, name);
    else {
      const id = uuid.safeParse(value);
      if (!id.success) throw errors.notFound(named);
      params[name] = id.data;
    }
  }
  return params;
}

function readBody(endpoint: Endpoint, body: unknown): unknown {
  const { batch, body: schema } = endpoint.http;
  if (!schema) return {};
  if (!batch) return parse(schema, body);
  if (!batch.entriesUpstream) return parseBatch(schema, body, batch);
  const shell = z.object({ [batch.field]: z.array(z.unknown()).min(1, `${batch.field} must list 1 to ${batch.max.toLocaleString('en-US')} entries`) });
  return parseBatch(shell, body, batch);
}

function callerOf(auth: HttpAuth, res: Response): object {
  if (auth === 'key') return { actor: actorOf(res) };
  if (auth === 'session') return { viewerId: sessionOf(res).user.id };
  return {};
}

/**
 * One bound route, after its authentication: the same steps for every request-reply
 * endpoint, in the order a caller's mistakes are reported (path, query, body, headers), then one bus
 * call and the binding's status.
 */
export function endpointHandler(bus: Bus, authenticator: Authenticator, endpoint: Endpoint): RequestHandler {
  const { contract, http } = endpoint;
  return async (req, res) => {
    if (http.noStore) res.setHeader('Cache-Control', 'no-store');
    const params = readParams(endpoint, req);
    const query = http.query ? parse(http.query, req.query, 'query') : {};
    const body = readBody(endpoint, req.body);
    const idempotencyKey = http.idempotent ? idempotencyKeyOf(req) : undefined;
    const caller = callerOf(http.auth, res);
    const request = http.request
      ? http.request({ ...caller, params, query, body, idempotencyKey } as never)
      : { ...caller, ...params, ...(query as object), ...(body as object), ...(http.idempotent ? { idempotencyKey } : {}) };
    const reply = await bus.call(contract, request, http.timeoutMs ? { timeoutMs: http.timeoutMs(request) } : undefined);
    if (http.forgetsKey) authenticator.forgetKey((reply as { id: string }).id);
    res.status(http.status ?? 200).json(reply);
  };
}
