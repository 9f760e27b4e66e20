import { Router } from 'express';
import type { Authenticator } from '../auth/authenticator.ts';
import { identityOf, requireKey } from '../auth/middleware.ts';
import { toCallerIdentity } from '../auth/identity.ts';

/** POST /api/v1/auth/validate-key (spec 4.1): failures answer `{valid: false, code, message}`. */
export function authRoutes(authenticator: Authenticator): Router {
  const router = Router();
  router.post(
    '/api/v1/auth/validate-key',
    (_req, res, next) => {
      res.locals.validateKey = true;
      next();
    },
    requireKey(authenticator),
    (_req, res) => {
      res.json(toCallerIdentity(identityOf(res)));
    },
  );
  return router;
}
