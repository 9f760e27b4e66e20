import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withRequestId } from '@lode/telemetry';

const SANE_ID = /^[\w.:-]{1,128}$/;

/**
 * Keeps a caller's X-Request-Id (or makes one) and returns it, so a report can name its request;
 * every log line written while serving it, and its trace, carry the id too.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && SANE_ID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  withRequestId(id, next);
};
