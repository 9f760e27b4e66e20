import type { RequestHandler, Response } from 'express';
import { errors } from '@lode/errors';
import { sessions, type ReplyOf } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Authenticator } from './authenticator.ts';
import { refuseDeletedProject } from './identity.ts';
import { pathProjectId, requireKey, type Recheck } from './middleware.ts';
import { checkCsrf, sessionToken } from './session-cookie.ts';

export type LiveSession = NonNullable<ReplyOf<typeof sessions.resolveSession>['session']>;

const sessionExpired = () => errors.unauthorized('Not signed in, or the session has ended: sign in again');

/**
 * The signed-in person of a dashboard call, from the session cookie, with the CSRF check on writes.
 * Looked up on every call (no cache): sign-out and idle expiry take effect at once.
 */
export function requireSession(bus: Bus): RequestHandler {
  return async (req, res, next) => {
    const token = sessionToken(req);
    if (!token) throw sessionExpired();
    const { session } = await bus.call(sessions.resolveSession, { tokenHash: sessions.tokenHash(token), projectId: null });
    if (!session) throw sessionExpired();
    checkCsrf(req, session.csrfTokenHash);
    res.locals.session = session;
    next();
  };
}

export function sessionOf(res: Response): LiveSession {
  return res.locals.session as LiveSession;
}

/**
 * The project API's authentication: an API key when the request carries Authorization, else the
 * session cookie. A session resolves to the caller identity a key of the same user would have (the
 * session's id standing for the key's, no device), so both reach the same handlers with the same
 * project scoping and the same role; a project outside the person's orgs is 404, as a key's is.
 */
export function requireKeyOrSession(authenticator: Authenticator, bus: Bus): RequestHandler {
  const byKey = requireKey(authenticator);
  return async (req, res, next) => {
    const token = req.get('authorization') === undefined ? sessionToken(req) : undefined;
    if (token === undefined) return byKey(req, res, next);
    const projectId = pathProjectId(req);
    if (projectId === undefined) throw errors.notFound('Project');
    const tokenHash = sessions.tokenHash(token);
    const { session, project } = await bus.call(sessions.resolveSession, { tokenHash, projectId });
    if (!session) throw sessionExpired();
    checkCsrf(req, session.csrfTokenHash);
    if (!project) throw errors.notFound('Project');
    refuseDeletedProject(project);
    res.locals.session = session;
    res.locals.identity = project;
    res.locals.recheck = (async () => {
      const again = await bus.call(sessions.resolveSession, { tokenHash, projectId });
      if (!again.session) throw sessionExpired();
      if (!again.project) throw errors.notFound('Project');
      refuseDeletedProject(again.project);
      return again.project;
    }) satisfies Recheck;
    next();
  };
}
