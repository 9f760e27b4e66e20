import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { AppError} from '@lode/errors';
import { errors, isAppError } from '@lode/errors';
import type { Logger } from '@lode/telemetry';
import { statusByCode } from './error-status.ts';

/** body-parser signals its failures with a `type`; they are the client's fault, never a 500. */
function fromBodyParser(error: unknown): AppError | undefined {
  const type = (error as { type?: string })?.type;
  if (type === 'entity.parse.failed') return errors.invalidJson();
  if (type === 'entity.too.large') return errors.payloadTooLarge(String((error as { limit?: number }).limit ?? ''));
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || type === 'request.aborted') {
    return errors.validation('Request body could not be read');
  }
  return undefined;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      // A streamed body (sync) failed midway: the connection is cut, so the client cannot take a
      // truncated body for a whole one. A client hanging up lands here too.
      logger.warn({ err: error, method: req.method, path: req.path }, 'response failed after its headers were sent');
      res.destroy();
      return;
    }
    const appError = isAppError(error) ? error : fromBodyParser(error);
    if (!appError) logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    const failure = appError ?? errors.internal();
    const status = statusByCode[failure.code];
    // rate_limited and sync_catching_up say when to come back.
    const retryAfter = failure.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    // validate-key failures carry `valid: false` (spec 4.1, 5.5).
    const body = res.locals.validateKey ? { valid: false, ...failure.toJSON() } : failure.toJSON();
    res.status(status).json(body);
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(errors.routeNotFound(req.method, req.path));
};
