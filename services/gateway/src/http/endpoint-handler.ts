import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { uuid, type Endpoint, type HttpAuth } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Authenticator } from '../auth/authenticator.ts';
import { actorOf, pathProjectId } from '../auth/middleware.ts';
import { sessionOf } from '../auth/sessions.ts';
import { paramNames } from '../openapi/path-params.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { parse, parseBatch } from './parse.ts';

/** Parameters the middleware before a route already checked: a key route's project is the key's. */
const checkedBefore = (auth: HttpAuth, name: string) => auth === 'key' && name === 'projectId';

/** Reads the path's parameters of one binding; its names are read from the template once. */
function paramsReader({ http }: Endpoint): (req: Request) => Record<string, unknown> {
  const names = paramNames(http.path).filter((name) => !checkedBefore(http.auth, name));
  return (req) => {
    const params: Record<string, unknown> = {};
    for (const name of names) params[name] = readParam(http, name, req.params[name]);
    return params;
  };
}

function readParam(http: Endpoint['http'], name: string, value: unknown): unknown {
  const named = http.notFound?.[name];
  const schema = (http.params as Record<string, z.ZodType> | undefined)?.[name];
  if (schema) return parse(schema, value, name);
  if (named === undefined) return parse(uuid, value, name);
  const id = uuid.safeParse(value);
  if (!id.success) throw errors.notFound(named);
  return id.data;
}

/** Reads the body of one binding; a batch whose entries go upstream gets its array checked alone, by a schema made once. */
function bodyReader({ http }: Endpoint): (body: unknown) => unknown {
  const { batch, body: schema } = http;
  if (!schema) return () => ({});
  if (!batch) return (body) => parse(schema, body);
  if (!batch.entriesUpstream) return (body) => parseBatch(schema, body, batch);
  const shell = z.object({ [batch.field]: z.array(z.unknown()).min(1, `${batch.field} must list 1 to ${batch.max.toLocaleString('en-US')} entries`) });
  return (body) => parseBatch(shell, body, batch);
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
  const readParams = paramsReader(endpoint);
  const readBody = bodyReader(endpoint);
  return async (req, res) => {
    if (http.noStore) res.setHeader('Cache-Control', 'no-store');
    const params = readParams(req);
    const query = http.query ? parse(http.query, req.query, 'query') : {};
    const body = readBody(req.body);
    const idempotencyKey = http.idempotent ? idempotencyKeyOf(req) : undefined;
    const caller = callerOf(http.auth, res);
    const request = http.request
      ? http.request({ ...caller, params, query, body, idempotencyKey } as never)
      : { ...caller, ...params, ...(query as object), ...(body as object), ...(http.idempotent ? { idempotencyKey } : {}) };
    const reply = await bus.call(contract, request, http.timeoutMs ? { timeoutMs: http.timeoutMs(request) } : undefined);
    if (http.forgetsKey) authenticator.forgetKey((reply as { id: string }).id);
    const projectId = http.forgetsProject ? pathProjectId(req) : undefined;
    if (projectId !== undefined) authenticator.forgetProject(projectId);
    res.status(http.status ?? 200).json(reply);
  };
}
