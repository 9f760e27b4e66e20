import type { RequestHandler } from 'express';
import { AppError, errors } from '@lode/errors';
import type { Authenticator } from '../auth/authenticator.ts';
import { clientAddress } from '../auth/failure-throttle.ts';
import { identityOf, pathProjectId } from '../auth/middleware.ts';
import { lfsCredentials } from './lfs-credentials.ts';

/**
 * Authenticates a Git LFS request with the project key and device it carries, through the same
 * cache, failure budgets and device binding as every key request. No credentials: 401, whose
 * challenge makes git-lfs ask its credential helper and send them.
 */
export function requireLfsKey(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const { authorization, deviceId } = lfsCredentials(req);
    if (authorization === undefined) {
      throw new AppError('missing_key', 'Credentials needed: your Lode project key as the password and your device id as the user name');
    }
    res.locals.identity = await authenticator.authenticate(authorization, deviceId, clientAddress(req));
    next();
  };
}

/**
 * A key reaches its own project only, named by id (`/lfs/{projectId}`) or by slugs
 * (`/lfs/{org-slug}/{project-slug}`); any other answers 404 with no data, as the REST API does.
 */
export const requireLfsProject: RequestHandler = (req, res, next) => {
  const identity = identityOf(res);
  const { orgSlug, projectSlug } = req.params as { orgSlug?: string; projectSlug?: string };
  const ours =
    orgSlug === undefined
      ? pathProjectId(req) === identity.projectId
      : orgSlug.toLowerCase() === identity.orgSlug && projectSlug?.toLowerCase() === identity.projectSlug;
  if (!ours) throw errors.notFound('Project');
  next();
};
