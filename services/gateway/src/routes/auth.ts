import { Router, type RequestHandler } from 'express';
import { forPaths } from '../http/route-paths.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { toCallerIdentity } from '../auth/identity.ts';
import { identityOf, requireKey } from '../auth/middleware.ts';

/** POST /api/v1/auth/validate-key: failures answer `{valid: false, code, message}`. */
export function authRoutes(authenticator: Authenticator, readBody: RequestHandler): RequestHandler {
  const router = Router();
  const answerInvalidKeys: RequestHandler = (_req, res, next) => {
    res.locals.validateKey = true;
    next();
  };
  // The key first, then any body: a caller without a valid key never has its body read.
  router.post('/api/v1/auth/validate-key', answerInvalidKeys, requireKey(authenticator), readBody, (_req, res) => {
    res.json(toCallerIdentity(identityOf(res)));
  });
  return forPaths(['/api/v1/auth/validate-key'], router);
}
