import { Router } from 'express';
import type { Authenticator } from '../auth/authenticator.ts';
import { toCallerIdentity } from '../auth/identity.ts';

/** POST /api/v1/auth/validate-key (spec 4.1): failures answer `{valid: false, code, message}`. */
export function authRoutes(authenticator: Authenticator): Router {
  const router = Router();
  // One handler, not three layers: this is the cheapest call a client makes, and the most frequent.
  router.post('/api/v1/auth/validate-key', async (req, res) => {
    res.locals.validateKey = true;
    const identity = await authenticator.authenticate(req.get('authorization'), req.get('x-device-id'));
    res.json(toCallerIdentity(identity));
  });
  return router;
}
