import type { RequestHandler } from 'express';

/**
 * Every answer is what its Content-Type says: a browser must not sniff a JSON error that echoes
 * input, or a blob, into a page of this origin.
 */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/**
 * For answers that carry a secret (a new key, a sign-in link or session, the session's CSRF token,
 * a webhook's signing secret): no cache, shared or the browser's, keeps a copy of it.
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
