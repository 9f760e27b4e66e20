import type { Request, RequestHandler, Response } from 'express';
import { instruments, secondsSince } from '@lode/telemetry';

/** Set by a router mounted under a parameterised path, so the route label stays a template. */
export function mountedAt(template: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.mount = template;
    next();
  };
}

/** The matched route's template: bounded label values, never a project id or a file id. */
export function routeOf(req: Request, res: Response): string {
  const mount = res.locals.mount as string | undefined;
  if (!req.route) return mount ?? 'unmatched';
  return `${mount ?? ''}${String((req.route as { path: string }).path)}`;
}

/** Every response is counted and timed by method, route and status; 429s also count as rate-limit rejections. */
export const requestMetrics: RequestHandler = (req, res, next) => {
  const started = performance.now();
  res.once('finish', () => {
    const route = routeOf(req, res);
    const metrics = instruments();
    metrics.httpServerDuration.record(secondsSince(started), {
      'http.request.method': req.method,
      'http.route': route,
      'http.response.status_code': res.statusCode,
    });
    if (res.statusCode === 429) metrics.rateLimitRejections.add(1, { 'http.route': route });
  });
  next();
};
