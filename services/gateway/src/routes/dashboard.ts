import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { identity, roleSchema, sessions, uuid } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Authenticator } from '../auth/authenticator.ts';
import type { RateLimit } from '../ratelimit/limiter.ts';
import { requireSession, sessionOf } from '../auth/sessions.ts';
import { listQuery } from '../http/admin-bodies.ts';
import { parse } from '../http/parse.ts';
import { noStore } from '../http/security-headers.ts';

export const createProjectBody = z.object({ name: identity.displayName, slug: identity.slug });
export const memberBody = z.union([z.object({ userId: uuid, role: roleSchema }), z.object({ email: identity.email, role: roleSchema })]);
export const invitationBody = z.object({ email: identity.email, role: roleSchema });
export const createKeyBody = z.object({ userId: uuid.nullable().optional() });
export const writeLimitBody = z.object({ writeRateLimit: identity.writeRateLimitSchema.nullable() });

/** A malformed id names nothing, as an unknown one: 404 before any call. */
function idParam(req: Request, name: string, what: string): string {
  const parsed = uuid.safeParse(req.params[name]);
  if (!parsed.success) throw errors.notFound(what);
  return parsed.data;
}

const viewerId = (res: Response) => sessionOf(res).user.id;

/**
 * The dashboard's own routes, for a signed-in person only (issue 21): their orgs, projects, members,
 * invitations, keys and project settings. The identity service decides what the person may see and change.
 */
export function dashboardRoutes(deps: { bus: Bus; authenticator: Authenticator; readBody: RequestHandler; defaultWriteLimit: RateLimit }): Router {
  const { bus } = deps;
  const router = Router();
  // The session first, then the body: a caller who is not signed in never has its body read.
  const session = requireSession(bus);
  const { readBody } = deps;

  router.get('/api/v1/me/orgs', session, readBody, async (_req, res) => {
    res.json(await bus.call(sessions.myOrgs, { viewerId: viewerId(res) }));
  });

  router.get('/api/v1/orgs/:orgId/projects', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    res.json(await bus.call(sessions.orgProjects, { viewerId: viewerId(res), orgId, ...parse(listQuery, req.query, 'query') }));
  });
  router.post('/api/v1/orgs/:orgId/projects', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    res.status(201).json(await bus.call(sessions.createOrgProject, { viewerId: viewerId(res), orgId, ...parse(createProjectBody, req.body) }));
  });

  router.get('/api/v1/orgs/:orgId/members', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    res.json(await bus.call(sessions.orgMembers, { viewerId: viewerId(res), orgId, ...parse(listQuery, req.query, 'query') }));
  });
  router.post('/api/v1/orgs/:orgId/members', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    const { role, ...member } = parse(memberBody, req.body);
    res.json(await bus.call(sessions.setMemberRole, { viewerId: viewerId(res), orgId, member, role }));
  });
  router.delete('/api/v1/orgs/:orgId/members/:userId', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    const userId = idParam(req, 'userId', 'Member');
    res.json(await bus.call(sessions.removeMember, { viewerId: viewerId(res), orgId, userId }));
  });

  router.get('/api/v1/orgs/:orgId/invitations', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    res.json(await bus.call(sessions.orgInvitations, { viewerId: viewerId(res), orgId, ...parse(listQuery, req.query, 'query') }));
  });
  router.post('/api/v1/orgs/:orgId/invitations', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    res.status(201).json(await bus.call(sessions.inviteMember, { viewerId: viewerId(res), orgId, ...parse(invitationBody, req.body) }));
  });
  router.delete('/api/v1/orgs/:orgId/invitations/:invitationId', session, readBody, async (req, res) => {
    const orgId = idParam(req, 'orgId', 'Organization');
    const invitationId = idParam(req, 'invitationId', 'Invitation');
    res.json(await bus.call(sessions.revokeInvitation, { viewerId: viewerId(res), orgId, invitationId }));
  });
  router.get('/api/v1/me/invitations', session, readBody, async (_req, res) => {
    res.json(await bus.call(sessions.myInvitations, { viewerId: viewerId(res) }));
  });
  router.post('/api/v1/me/invitations/:invitationId/accept', session, readBody, async (req, res) => {
    const invitationId = idParam(req, 'invitationId', 'Invitation');
    res.json(await bus.call(sessions.acceptInvitation, { viewerId: viewerId(res), invitationId }));
  });
  router.post('/api/v1/me/invitations/:invitationId/decline', session, readBody, async (req, res) => {
    const invitationId = idParam(req, 'invitationId', 'Invitation');
    res.json(await bus.call(sessions.declineInvitation, { viewerId: viewerId(res), invitationId }));
  });

  router.get('/api/v1/projects/:projectId/overview', session, readBody, async (req, res) => {
    const projectId = idParam(req, 'projectId', 'Project');
    const overview = await bus.call(sessions.projectOverview, { viewerId: viewerId(res), projectId });
    // The default limit is this gateway's to apply (limitWrites), so it is the one to say what it is.
    const page: z.input<typeof sessions.projectOverviewPage> = { ...overview, defaultWriteRateLimit: deps.defaultWriteLimit };
    res.json(page);
  });
  router.put('/api/v1/projects/:projectId/write-rate-limit', session, readBody, async (req, res) => {
    const projectId = idParam(req, 'projectId', 'Project');
    res.json(await bus.call(sessions.setProjectWriteLimit, { viewerId: viewerId(res), projectId, ...parse(writeLimitBody, req.body) }));
  });

  router.get('/api/v1/projects/:projectId/keys', session, readBody, async (req, res) => {
    const projectId = idParam(req, 'projectId', 'Project');
    res.json(await bus.call(sessions.projectKeys, { viewerId: viewerId(res), projectId, ...parse(listQuery, req.query, 'query') }));
  });
  router.post('/api/v1/projects/:projectId/keys', session, readBody, noStore, async (req, res) => {
    const projectId = idParam(req, 'projectId', 'Project');
    const { userId } = parse(createKeyBody, req.body);
    res.status(201).json(await bus.call(sessions.createProjectKey, { viewerId: viewerId(res), projectId, userId: userId ?? null }));
  });
  // Both change what a key may do: this gateway's cache forgets it at once, others within their TTL.
  const changeKey = (change: 'revoke' | 'reset_device') => async (req: Request, res: Response) => {
    const projectId = idParam(req, 'projectId', 'Project');
    const keyId = idParam(req, 'keyId', 'API key');
    const key = await bus.call(sessions.changeProjectKey, { viewerId: viewerId(res), projectId, keyId, change });
    deps.authenticator.forgetKey(key.id);
    res.json(key);
  };
  router.delete('/api/v1/projects/:projectId/keys/:keyId', session, readBody, changeKey('revoke'));
  router.post('/api/v1/projects/:projectId/keys/:keyId/reset-device', session, readBody, changeKey('reset_device'));

  return router;
}
