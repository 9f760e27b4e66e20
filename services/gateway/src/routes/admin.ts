import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { errors } from '@lode/errors';
import type { Database } from '@lode/db';
import { uuid } from '@lode/contracts';
import { bearerToken } from '../auth/api-key.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { parse } from '../http/parse.ts';
import { AdminService } from '../identity/admin-service.ts';
import { addMemberBody, createKeyBody, createOrgBody, createProjectBody, createUserBody, listQuery } from '../identity/admin-schemas.ts';
import { view } from '../identity/admin-views.ts';
import { createdAtPosition } from '../identity/keyset.ts';

/** Compares SHA-256 digests so the comparison takes the same time whatever the token's length. */
function requireAdminToken(token: string): RequestHandler {
  const expected = createHash('sha256').update(token).digest();
  return (req, _res, next) => {
    const given = bearerToken(req.get('authorization')) ?? '';
    if (!timingSafeEqual(createHash('sha256').update(given).digest(), expected)) {
      throw errors.unauthorized('Admin token required: Authorization: Bearer $LODE_ADMIN_TOKEN');
    }
    next();
  };
}

function idParam(value: unknown, what: string): string {
  const parsed = uuid.safeParse(value);
  if (!parsed.success) throw errors.notFound(what);
  return parsed.data;
}

/** The operator API of issue 2: orgs, users, memberships, projects and keys. */
export function adminRoutes(deps: { db: Database; adminToken: string; authenticator: Authenticator }): Router {
  const admin = new AdminService(deps.db, `cursor:${deps.adminToken}`);
  const router = Router();
  router.use('/admin', requireAdminToken(deps.adminToken));

  router.post('/admin/v1/orgs', async (req, res) => {
    const body = parse(createOrgBody, req.body);
    res.status(201).json(view.org(await admin.createOrg(body.name, body.slug)));
  });
  router.get('/admin/v1/orgs', async (req, res) => {
    const q = parse(listQuery, req.query, 'query');
    res.json(await admin.page('orgs', q, (after, limit) => admin.orgs.list(after, limit), createdAtPosition, view.org));
  });

  router.post('/admin/v1/users', async (req, res) => {
    const body = parse(createUserBody, req.body);
    res.status(201).json(view.user(await admin.createUser(body.name, body.avatarUrl ?? null)));
  });
  router.get('/admin/v1/users', async (req, res) => {
    const q = parse(listQuery, req.query, 'query');
    res.json(await admin.page('users', q, (after, limit) => admin.users.list(after, limit), createdAtPosition, view.user));
  });

  router.post('/admin/v1/orgs/:orgId/members', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    const body = parse(addMemberBody, req.body);
    res.status(201).json(view.member(await admin.addMember(orgId, body.userId, body.role)));
  });
  router.get('/admin/v1/orgs/:orgId/members', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    await admin.requireOrg(orgId);
    const q = parse(listQuery, req.query, 'query');
    res.json(await admin.page('members', q, (after, limit) => admin.members.list(orgId, after, limit), (m) => [m.user_id], view.member));
  });

  router.post('/admin/v1/orgs/:orgId/projects', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    const body = parse(createProjectBody, req.body);
    res.status(201).json(view.project(await admin.createProject(orgId, body)));
  });
  router.get('/admin/v1/orgs/:orgId/projects', async (req, res) => {
    const orgId = idParam(req.params.orgId, 'Organization');
    await admin.requireOrg(orgId);
    const q = parse(listQuery, req.query, 'query');
    res.json(await admin.page('projects', q, (after, limit) => admin.projects.listByOrg(orgId, after, limit), createdAtPosition, view.project));
  });

  router.post('/admin/v1/projects/:projectId/keys', async (req, res) => {
    const projectId = idParam(req.params.projectId, 'Project');
    const body = parse(createKeyBody, req.body);
    const { key, row } = await admin.createKey(projectId, body.userId);
    res.status(201).json({ ...view.key(row), key });
  });
  router.get('/admin/v1/projects/:projectId/keys', async (req, res) => {
    const projectId = idParam(req.params.projectId, 'Project');
    await admin.requireProject(projectId);
    const q = parse(listQuery, req.query, 'query');
    res.json(await admin.page('keys', q, (after, limit) => admin.keys.listByProject(projectId, after, limit), createdAtPosition, view.key));
  });

  router.delete('/admin/v1/keys/:keyId', async (req, res) => {
    const row = await admin.revokeKey(idParam(req.params.keyId, 'API key'));
    deps.authenticator.forgetKey(row.id);
    res.json(view.key(row));
  });
  router.post('/admin/v1/keys/:keyId/reset-device', async (req, res) => {
    const row = await admin.resetDevice(idParam(req.params.keyId, 'API key'));
    deps.authenticator.forgetKey(row.id);
    res.json(view.key(row));
  });

  return router;
}
