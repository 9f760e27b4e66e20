import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { errors } from '@lode/errors';
import type { Bus } from '@lode/bus';
import { identity, sessions, uuid } from '@lode/contracts';
import { bearerToken } from '../auth/api-key.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { clientAddress, type FailureThrottle } from '../auth/failure-throttle.ts';
import { publicOrigin } from '../auth/public-url.ts';
import { parse } from '../http/parse.ts';
import { noStore } from '../http/security-headers.ts';
import { adminWebhookRoutes } from './webhooks.ts';
import { addMemberBody, createKeyBody, createOrgBody, createProjectBody, createUserBody, listQuery, setUserEmailBody } from '../http/admin-bodies.ts';

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

/** The operator API of issue 2: orgs, users, memberships, projects and keys, each an identity service call. */
export function adminRoutes(deps: {
  bus: Bus;
  adminToken: string;
  authenticator: Authenticator;
  throttle: FailureThrottle;
  publicUrl: string | undefined;
  readBody: RequestHandler;
}): Router {
  const { bus } = deps;
  const router = Router();
  // The token first, then the body: a caller without the token never has its body read.
  router.use('/admin', requireAdminToken(deps.adminToken, deps.throttle), deps.readBody);

  router.post('/admin/v1/orgs', async (req, res) => {
    res.status(201).json(await bus.call(identity.createOrg, parse(createOrgBody, req.body)));
  });
  router.get('/admin/v1/orgs', async (req, res) => {
    res.json(await bus.call(identity.listOrgs, parse(listQuery, req.query, 'query')));
  });

  router.post('/admin/v1/users', async (req, res) => {
    const body = parse(createUserBody, req.body);
    res.status(201).json(await bus.call(identity.createUser, { name: body.name, avatarUrl: body.avatarUrl ?? null, email: body.email ?? null }));
  });
  router.get('/admin/v1/users', async (req, res) => {
    res.json(await bus.call(identity.listUsers, parse(listQuery, req.query, 'query')));
  });
  // An OpenID Connect sign-in finds an admin-made user by this email, so a user made without one can be given it.
  router.patch('/admin/v1/users/:userId', async (req, res) => {
    const userId = idParam(req.params.userId, 'User');
    res.json(await bus.call(identity.setUserEmail, { userId, ...parse(setUserEmailBody, req.body) }));
  });

  // A one-time link into the dashboard (issue 21); the token rides in the fragment, which no server or log sees.
  router.post('/admin/v1/users/:userId/sign-in-links', noStore, async (req, res) => {
    const link = await bus.call(sessions.createSignInLink, { userId: idParam(req.params.userId, 'User') });
    res.status(201).json({ url: `${publicOrigin(req, deps.publicUrl)}/sign-in#token=${link.token}`, expiresAt: link.expiresAt });
  });

  router.post('/admin/v1/orgs/:orgId/members', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    res.status(201).json(await bus.call(identity.addMember, { orgId, ...parse(addMemberBody, req.body) }));
  });
  router.get('/admin/v1/orgs/:orgId/members', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    res.json(await bus.call(identity.listMembers, { orgId, ...parse(listQuery, req.query, 'query') }));
  });

  router.post('/admin/v1/orgs/:orgId/projects', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    const body = parse(createProjectBody, req.body);
    const project = { orgId, name: body.name, slug: body.slug, iconUrl: body.iconUrl ?? null, writeRateLimit: body.writeRateLimit ?? null };
    res.status(201).json(await bus.call(identity.createProject, project));
  });
  router.get('/admin/v1/orgs/:orgId/projects', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    res.json(await bus.call(identity.listProjects, { orgId, ...parse(listQuery, req.query, 'query') }));
  });

  router.post('/admin/v1/projects/:projectId/keys', noStore, async (req, res) => {
    const projectId = idParam(req.params.projectId, 'Project');
    res.status(201).json(await bus.call(identity.createKey, { projectId, ...parse(createKeyBody, req.body) }));
  });
  router.get('/admin/v1/projects/:projectId/keys', async (req, res) => {
    const projectId = idParam(req.params.projectId, 'Project');
    res.json(await bus.call(identity.listKeys, { projectId, ...parse(listQuery, req.query, 'query') }));
  });

  // Both change what a key may do: this gateway's cache forgets it at once, others within their TTL.
  router.delete('/admin/v1/keys/:keyId', async (req, res) => {
    const key = await bus.call(identity.revokeKey, { keyId: idParam(req.params.keyId, 'API key') });
    deps.authenticator.forgetKey(key.id);
    res.json(key);
  });
  router.post('/admin/v1/keys/:keyId/reset-device', async (req, res) => {
    const key = await bus.call(identity.resetDevice, { keyId: idParam(req.params.keyId, 'API key') });
    deps.authenticator.forgetKey(key.id);
    res.json(key);
  });

  router.use('/admin/v1/projects/:projectId', adminWebhookRoutes(bus));

  return router;
}
