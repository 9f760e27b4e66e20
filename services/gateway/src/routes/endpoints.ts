import { Router, type RequestHandler } from 'express';
import { ENDPOINTS, type Endpoint, type HttpAuth } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Authenticator } from '../auth/authenticator.ts';
import { endpointHandler } from '../http/endpoint-handler.ts';

export interface EndpointRoutesDeps {
  bus: Bus;
  authenticator: Authenticator;
  /** The bindings of this caller kind are mounted here. */
  auth: HttpAuth;
  /** Where the router is mounted: each binding's path must begin with it. */
  mount: string;
  /** Run before every route's own steps: authentication and the body reader, when not the mount's. */
  before?: readonly RequestHandler[];
  /** Counts a bound `write` route against the project's write rate limit. */
  limitWrites?: RequestHandler;
  endpoints?: readonly Endpoint[];
}

/** The paths of one caller kind's bindings, for forPaths (http/route-paths.ts). */
export function bindingPaths(auth: HttpAuth, endpoints: readonly Endpoint[] = ENDPOINTS): string[] {
  return endpoints.filter((endpoint) => endpoint.http.auth === auth).map((endpoint) => endpoint.http.path);
}

/** Every request-reply route of one caller kind, each from its contract's HTTP binding. */
export function endpointRoutes(deps: EndpointRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  for (const endpoint of deps.endpoints ?? ENDPOINTS) {
    const { http } = endpoint;
    if (http.auth !== deps.auth) continue;
    // A binding may be the mount itself (DELETE /api/v1/projects/:projectId): its route is the router's root.
    if (http.path !== deps.mount && !http.path.startsWith(`${deps.mount}/`))
      throw new Error(`${endpoint.contract.subject}: ${http.path} is not under ${deps.mount}`);
    const handlers = [
      ...(deps.before ?? []),
      ...(http.write && deps.limitWrites ? [deps.limitWrites] : []),
      endpointHandler(deps.bus, deps.authenticator, endpoint),
    ];
    router[http.method](http.path.slice(deps.mount.length) || '/', ...handlers);
  }
  return router;
}
