import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import { errors } from '@lode/errors';
import { sessions, uuid } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Authenticator } from '../auth/authenticator.ts';
import type { RateLimit } from '../ratelimit/limiter.ts';
import { requireSession, sessionOf } from '../auth/sessions.ts';
import { forPaths } from '../http/route-paths.ts';
import { bindingPaths, endpointRoutes } from './endpoints.ts';

const OVERVIEW_PATH = '/api/v1/projects/:projectId/overview';

/**
 * The dashboard's own routes, for a signed-in person only: their orgs, projects, members,
 * invitations, keys and project settings (the session contracts' bindings), and a project's overview.
 * The identity service decides what the person may see and change.
 */
export function dashboardRoutes(deps: { bus: Bus; authenticator: Authenticator; readBody: RequestHandler; defaultWriteLimit: RateLimit }): RequestHandler {
  const { bus, readBody } = deps;
  const router = Router();
  // The session first, then the body: a caller who is not signed in never has its body read.
  const session = requireSession(bus);

  router.use(endpointRoutes({ bus, authenticator: deps.authenticator, auth: 'session', mount: '', before: [session, readBody] }));

  router.get(OVERVIEW_PATH, session, readBody, async (req, res) => {
    const projectId = uuid.safeParse(req.params.projectId);
    if (!projectId.success) throw errors.notFound('Project');
    const overview = await bus.call(sessions.projectOverview, { viewerId: sessionOf(res).user.id, projectId: projectId.data });
    // The default limit is this gateway's to apply (limitWrites), so it is the one to say what it is.
    const page: z.input<typeof sessions.projectOverviewPage> = { ...overview, defaultWriteRateLimit: deps.defaultWriteLimit };
    res.json(page);
  });

  return forPaths([...bindingPaths('session'), OVERVIEW_PATH], router);
}
