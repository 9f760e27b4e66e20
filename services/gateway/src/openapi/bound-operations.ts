import { ENDPOINTS, type Endpoint } from '@lode/contracts';
import type { Operation, OperationGroup } from './operation.ts';
import { idempotencyHeaders } from './operations/headers.ts';

/** A bound route as OpenAPI describes it: its binding, and its reply as the contract checks it. */
export function boundOperation({ contract, http }: Endpoint): Operation {
  return {
    method: http.method,
    path: http.path,
    summary: http.summary,
    ...(http.description ? { description: http.description } : {}),
    auth: http.auth,
    ...(http.write ? { write: true } : {}),
    ...(http.params ? { params: http.params } : {}),
    ...(http.query ? { query: http.query } : {}),
    ...(http.idempotent ? { headers: idempotencyHeaders } : {}),
    ...(http.documentedBody || http.body ? { body: http.documentedBody ?? http.body } : {}),
    ...(http.status ? { status: http.status } : {}),
    reply: contract.reply,
    ...(http.errors ? { errors: http.errors } : {}),
  };
}

/** The group of one tag's bound routes. */
export function boundGroup(tag: string, description: string, endpoints: readonly Endpoint[] = ENDPOINTS): OperationGroup {
  return { tag, description, operations: endpoints.filter((endpoint) => endpoint.http.tag === tag).map(boundOperation) };
}
