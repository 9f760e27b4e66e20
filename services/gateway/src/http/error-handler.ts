import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { errors, isAppError, type AppError } from '@lode/errors';
import type { Logger } from '@lode/telemetry';
import { statusByCode } from './error-status.ts';

/**
 * Middleware we use (the router, express's parsers) signals a client's fault as an http-errors error with
 * a 4xx status: it keeps that status with our JSON body, never a 500. Statuses with a code of their
 * own keep it; any other 4xx is the request's fault in general, 400 validation_failed.
 */
function fromMiddleware(error: unknown): AppError | undefined {
  const e = error as { type?: unknown; status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown; limit?: unknown } | null;
  if (typeof e !== 'object' || e === null) return undefined;
  if (e.type === 'entity.parse.failed') return errors.invalidJson();
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  const detail = e.expose === true && typeof e.message === 'string' ? `: ${e.message}` : '';
  if (status === 413) return errors.payloadTooLarge(typeof e.limit === 'number' ? `${e.limit}-byte` : 'size');
  if (status === 415) return errors.unsupportedMediaType(`Request body cannot be read${detail}`);
  return errors.validation(`Request body could not be read${detail}`);
}

/** Writes a refusal's status and body; the status table and Retry-After were applied already. */
export type ErrorAnswer = (res: Response, status: number, failure: AppError) => void;

// validate-key failures carry `valid: false`: a client checking a key reads one field either way.
const answerJson: ErrorAnswer = (res, status, failure) => {
  res.status(status).json(res.locals.validateKey ? { valid: false, ...failure.toJSON() } : failure.toJSON());
};

/** The one error handler: `answer` gives a protocol of its own (Git LFS) its body. */
export function errorHandler(logger: Logger, answer: ErrorAnswer = answerJson): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.destroyed && !res.writableFinished) {
      // The client hung up (a cancelled sync, a closed tab): nobody is left to answer, and it is no
      // fault of ours. The pipe that noticed has already stopped pulling the rest of the body.
      logger.debug({ err: error, method: req.method, path: req.path }, 'client closed the connection before the response ended');
      return;
    }
    if (res.headersSent) {
      // A streamed body (sync) failed midway: the connection is cut, so the client cannot take a
      // truncated body for a whole one.
      logger.warn({ err: error, method: req.method, path: req.path }, 'response failed after its headers were sent');
      res.destroy();
      return;
    }
    const appError = isAppError(error) ? error : fromMiddleware(error);
    if (!appError) logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    const failure = appError ?? errors.internal();
    const status = statusByCode[failure.code];
    // rate_limited and sync_catching_up say when to come back.
    const retryAfter = failure.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    answer(res, status, failure);
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(errors.routeNotFound(req.method, req.path));
};
