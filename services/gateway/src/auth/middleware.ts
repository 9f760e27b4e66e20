import type { Request, RequestHandler, Response } from 'express';
import { errors } from '@lode/errors';
import { uuid, type Actor, type identity } from '@lode/contracts';
import type { Authenticator } from './authenticator.ts';
import { clientAddress } from './failure-throttle.ts';
import { toActor } from './identity.ts';
import type { RateLimit, WriteLimiter } from '../ratelimit/limiter.ts';

export function requireKey(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const authorization = req.get('authorization');
    const deviceId = req.get('x-device-id');
    res.locals.identity = await authenticator.authenticate(authorization, deviceId, clientAddress(req));
    res.locals.recheck = (() => authenticator.authenticate(authorization, deviceId)) satisfies Recheck;
    next();
  };
}

/**
 * Authenticates the request's caller again, as it was authenticated (the key through the same cache,
 * so a revocation this gateway made is seen at once; a session asked of the identity service),
 * throwing the refusal a new request would get. For responses that outlive the check made at their
 * start: a live feed must not keep serving a revoked key, an ended session or a removed member.
 */
export type Recheck = () => Promise<identity.KeyIdentity>;

export function recheckOf(res: Response): Recheck {
  return res.locals.recheck as Recheck;
}

export function identityOf(res: Response): identity.KeyIdentity {
  return res.locals.identity as identity.KeyIdentity;
}

export function actorOf(res: Response): Actor {
  return toActor(identityOf(res));
}

/**
 * The path's project id as the services and the caller's identity write it (lowercase), or undefined
 * when it is no UUID: requests may write ids in either case (docs/api.md, Conventions), so every
 * comparison with the caller's project goes through this one form.
 */
export function pathProjectId(req: Request): string | undefined {
  const parsed = uuid.safeParse(req.params.projectId);
  return parsed.success ? parsed.data : undefined;
}

/**
 * A key authenticates one project: any other project id answers 404 with no data. The
 * handlers after it act on the identity's project id, so the services never see the path's spelling.
 */
export const requireOwnProject: RequestHandler = (req, res, next) => {
  if (pathProjectId(req) !== identityOf(res).projectId) throw errors.notFound('Project');
  next();
};

/** Counts one write against the project's token bucket; batch calls count once. */
export function limitWrites(limiter: WriteLimiter, defaults: RateLimit): RequestHandler {
  return async (_req, res, next) => {
    const key = identityOf(res);
    const limit = {
      perSecond: key.writeRatePerSecond ?? defaults.perSecond,
      burst: key.writeRateBurst ?? defaults.burst,
    };
    const { allowed, retryAfterSeconds } = await limiter.takeWrite(key.projectId, limit);
    if (!allowed) throw errors.rateLimited(retryAfterSeconds);
    next();
  };
}
