import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { errors } from '@lode/errors';
import type { Bus } from '@lode/bus';
import { sessions, uuid } from '@lode/contracts';
import { bearerToken } from '../auth/api-key.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { clientAddress, type FailureThrottle } from '../auth/failure-throttle.ts';
import { publicOrigin } from '../auth/public-url.ts';
import { forPaths } from '../http/route-paths.ts';
import { noStore } from '../http/security-headers.ts';
import { bindingPaths, endpointRoutes } from './endpoints.ts';

const adminTokenRequired = () => errors.unauthorized('Admin token required: Authorization: Bearer $LODE_ADMIN_TOKEN');

/**
 * Compares SHA-256 digests so the comparison takes the same time whatever the token's length. The
 * comparison costs nothing, so the budget of failures is there against guessing: a spent budget
 * refuses even the right token, as answering it would tell a guesser which guess was right.
 */
function requireAdminToken(token: string, throttle: FailureThrottle): RequestHandler {
  const expected = createHash('sha256').update(token).digest();
  return async (req, _res, next) => {
    const given = bearerToken(req.get('authorization'));
    if (given === undefined) throw adminTokenRequired();
    await throttle.attempt(throttle.byAddress('admin-token', clientAddress(req)), async () => {
      if (!timingSafeEqual(createHash('sha256').update(given).digest(), expected)) throw adminTokenRequired();
    });
    next();
  };
}

function idParam(value: unknown, what: string): string {
  const parsed = uuid.safeParse(value);
  if (!parsed.success) throw errors.notFound(what);
  return parsed.data;
}

/**
 * The operator API behind the admin token: orgs, users, memberships, projects and keys (the identity
 * contracts' bindings), the projects' webhooks (the webhook contracts' second bindings) and sign-in links.
 */
export function adminRoutes(deps: {
  bus: Bus;
  adminToken: string;
  authenticator: Authenticator;
  throttle: FailureThrottle;
  publicUrl: string | undefined;
  readBody: RequestHandler;
}): RequestHandler {
  const { bus } = deps;
  const router = Router();
  // The token first, then the body: a caller without the token never has its body read.
  router.use('/admin', requireAdminToken(deps.adminToken, deps.throttle), deps.readBody);

  router.use(endpointRoutes({ bus, authenticator: deps.authenticator, auth: 'admin', mount: '' }));

  // A one-time link into the dashboard; the token rides in the fragment, which no server or log sees.
  router.post('/admin/v1/users/:userId/sign-in-links', noStore, async (req, res) => {
    const link = await bus.call(sessions.createSignInLink, { userId: idParam(req.params.userId, 'User') });
    res.status(201).json({ url: `${publicOrigin(req, deps.publicUrl)}/sign-in#token=${link.token}`, expiresAt: link.expiresAt });
  });

  return forPaths(['/admin/*', ...bindingPaths('admin')], router);
}
