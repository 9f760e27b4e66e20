import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type Request } from 'express';
import { errors } from '@lode/errors';

/** clients/web's Vite build, where `npm run build:web` (and `npm start` when it is missing or stale) writes it. */
export const DEFAULT_WEB_ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'clients', 'web', 'dist');

/** Paths that are never the dashboard's: an unknown one there stays a JSON 404. */
const NOT_PAGES = /^\/(api|admin|storage|assets)(\/|$)|^\/(healthz|readyz)$/;

// Mantine sets styles inline; everything else comes from this origin only, and no other site may frame the app.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** A browser's navigation asks for text/html by name; an API client that names no type gets JSON errors as before. */
function wantsPage(req: Request): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    !NOT_PAGES.test(req.path) &&
    /text\/html/.test(req.get('accept') ?? '') &&
    req.accepts(['html', 'json']) === 'html'
  );
}

/**
 * The web dashboard at `/`: its hashed assets cached for a year as immutable (a new build has new
 * names), and its index page, revalidated every time, for every other page path the app routes itself.
 */
export function webRoutes(root: string = DEFAULT_WEB_ROOT): Router {
  const router = Router();
  const index = path.join(root, 'index.html');
  router.use('/assets', express.static(path.join(root, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  router.use((req, res, next) => {
    if (!wantsPage(req)) return next();
    if (!existsSync(index)) throw errors.notFound('The dashboard (clients/web is not built: run npm run build:web)');
    res.set(PAGE_HEADERS).sendFile(index);
  });
  return router;
}
