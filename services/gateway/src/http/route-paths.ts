import type { RequestHandler, Router } from 'express';

/**
 * Runs `router` only for requests whose path one of its routes could match, and skips it untried
 * for the others: Express tries every route of every router mounted before the one that answers, on
 * every request, and leaves a router that answered nothing on a later turn of the event loop
 * (setImmediate), so a project's call would otherwise pass the health, docs, auth, admin, session
 * and dashboard routes one by one, and wait for six turns. `paths` are the router's route paths and
 * `use` prefixes, in Express's syntax (`:name` a segment); one ending in `/*` stands for itself and
 * every path below it. They are matched as Express matches them, case-insensitively, on the
 * undecoded path, a trailing slash allowed, and any segment a parameter could take, so a path the
 * router would answer is never skipped.
 */
export function forPaths(paths: readonly string[], router: Router): RequestHandler {
  const pattern = new RegExp(`^(?:${paths.map(pathPattern).join('|')})/?$`, 'i');
  const guarded: RequestHandler = (req, res, next) => {
    if (pattern.test(req.path)) return router(req, res, next);
    next();
  };
  // Its routes stay listed where Express lists a router's, for what reads an app's routes (the route catalogue's tests).
  return Object.assign(guarded, { stack: router.stack });
}

function pathPattern(path: string): string {
  const below = path.endsWith('/*');
  const segments = (below ? path.slice(0, -2) : path).split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : escape(segment)));
  return `${segments.join('/')}${below ? '(?:/.*)?' : ''}`;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
