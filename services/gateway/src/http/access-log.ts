import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@lode/telemetry';
import { routeOf } from './request-metrics.ts';

/**
 * What one access line says about a request: pino-http's `req`/`res`/`responseTime` layout, with the
 * route template (bounded, as the metrics label it) and the request id. Headers are never read, so
 * neither an API key nor the admin token can reach the log; the query string is left out too, since
 * on the local driver's URLs it is a signature that grants access to an object.
 */
function accessFields(incoming: IncomingMessage, outgoing: ServerResponse, responseTime: number) {
  const req = incoming as Request;
  const res = outgoing as Response;
  return {
    request_id: res.locals.requestId as string | undefined,
    req: { method: req.method, route: routeOf(req, res), url: req.originalUrl.split('?', 1)[0] },
    res: { statusCode: res.statusCode },
    responseTime,
    // The client went away before the response was written: the status is what it would have been.
    ...(res.writableFinished ? {} : { aborted: true }),
  };
}

/**
 * One `info` line per request, written when its response finishes (or the client hangs up). Mounted
 * after requestId, whose id it carries; the errors themselves are logged where they are handled.
 */
export function accessLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => (res as Response).locals.requestId as string,
    // pino-http binds the raw request to a per-request logger (req.log, which we do not use):
    // serialized whole it would carry every header. The access line's own `req` passes through.
    wrapSerializers: false,
    serializers: { req: (req: unknown) => (req instanceof IncomingMessage ? { method: req.method } : req) },
    quietResLogger: true,
    customSuccessObject: (req, res, value: { responseTime: number }) => accessFields(req, res, value.responseTime),
    customErrorObject: (req, res, _error, value: { responseTime: number }) => accessFields(req, res, value.responseTime),
  });
}
