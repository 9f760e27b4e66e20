import type { Express } from 'express';

/** A route the express app answers (`method` upper case), or a handler mounted under a path (`USE`). */
export interface RegisteredRoute {
  method: string;
  path: string;
}

/** What the router package (express 5) keeps of each layer: its registered path, its route, its handler. */
interface LayerShape {
  rawPath?: unknown;
  route?: { path?: unknown; methods?: Record<string, boolean> };
  handle?: unknown;
}

/** A router mounted at `/` adds nothing to its routes' paths. */
function join(prefix: string, path: string): string {
  return path === '/' ? prefix : `${prefix}${path}`.replace(/\/{2,}/g, '/');
}

function* walk(stack: readonly unknown[], prefix: string): Generator<RegisteredRoute> {
  for (const item of stack) {
    const layer = item as LayerShape;
    const path = typeof layer.rawPath === 'string' ? layer.rawPath : '/';
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods ?? {})) yield { method: method.toUpperCase(), path: join(prefix, String(layer.route.path)) };
      continue;
    }
    const nested = (layer.handle as { stack?: unknown } | undefined)?.stack;
    if (Array.isArray(nested)) yield* walk(nested, join(prefix, path));
    else if (path !== '/') yield { method: 'USE', path: join(prefix, path) };
  }
}

/** Every route and path-mounted handler of the app, read from its router's layers. */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  return [...walk(app.router.stack, '')];
}

/**
 * What the catalogue misses: a route it does not list with the same method and template, or a
 * mounted handler (such as the storage endpoint, or a guard like /admin) under which it lists nothing.
 */
export function unlisted(registered: readonly RegisteredRoute[], catalogue: readonly RegisteredRoute[]): string[] {
  const listed = new Set(catalogue.map((r) => `${r.method} ${r.path}`));
  const missing = registered
    .filter((r) => (r.method === 'USE' ? !catalogue.some((c) => c.path.startsWith(r.path)) : !listed.has(`${r.method} ${r.path}`)))
    .map((r) => `${r.method} ${r.path}`);
  return [...new Set(missing)];
}
