import { Router, type Request, type RequestHandler, type Response } from 'express';
import { errors } from '@lode/errors';
import type { Bus } from '@lode/bus';
import { identity, uuid, webhooks } from '@lode/contracts';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';
import { noStore } from '../http/security-headers.ts';

/** Who is asking; called after the request's own input was read, so a bad body is 400 before an unknown project is 404. */
type ManagerOf = (req: Request, res: Response) => Promise<webhooks.Manager>;

function webhookId(req: Request): string {
  const parsed = uuid.safeParse(req.params.webhookId);
  if (!parsed.success) throw errors.notFound('Webhook');
  return parsed.data;
}

/** The webhook routes relative to a project, for whoever `managerOf` says is asking. */
function webhookRouter(bus: Bus, managerOf: ManagerOf, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  // Creation answers the signing secret, and so may an update (a rotation).
  router.post('/webhooks', limitWrites, noStore, async (req, res) => {
    const body = parse(webhooks.createBodySchema, req.body);
    res.status(201).json(await bus.call(webhooks.create, { manager: await managerOf(req, res), ...body }));
  });
  router.get('/webhooks', async (req, res) => {
    res.json(await bus.call(webhooks.list, { manager: await managerOf(req, res) }));
  });
  router.get('/webhooks/:webhookId', async (req, res) => {
    res.json(await bus.call(webhooks.get, { manager: await managerOf(req, res), webhookId: webhookId(req) }));
  });
  router.patch('/webhooks/:webhookId', limitWrites, noStore, async (req, res) => {
    const id = webhookId(req);
    const changes = parse(webhooks.updateBodySchema, req.body);
    res.json(await bus.call(webhooks.update, { manager: await managerOf(req, res), webhookId: id, changes }));
  });
  router.delete('/webhooks/:webhookId', limitWrites, async (req, res) => {
    res.json(await bus.call(webhooks.remove, { manager: await managerOf(req, res), webhookId: webhookId(req) }));
  });
  router.get('/webhooks/:webhookId/deliveries', async (req, res) => {
    const id = webhookId(req);
    const query = parse(webhooks.deliveriesQuerySchema, req.query, 'query');
    res.json(await bus.call(webhooks.listDeliveries, { manager: await managerOf(req, res), webhookId: id, ...query }));
  });
  router.post('/webhooks/:webhookId/ping', limitWrites, async (req, res) => {
    res.status(202).json(await bus.call(webhooks.ping, { manager: await managerOf(req, res), webhookId: webhookId(req) }));
  });

  return router;
}

/** docs/api.md, Webhooks: mounted under /api/v1/projects/:projectId; the key's role decides (owner, admin). */
export function webhookRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  return webhookRouter(bus, async (_req, res) => {
    const actor = actorOf(res);
    return { projectId: actor.projectId, role: actor.role };
  }, limitWrites);
}

const noLimit: RequestHandler = (_req, _res, next) => next();

/**
 * The same routes in the admin API, under /admin/v1/projects/:projectId, after the admin token check.
 * The webhooks service knows no projects, only webhooks: an unknown project would read as one without
 * webhooks, and could be given some. The identity service owns projects, and listing one key of an
 * unknown project is its 404, as on the admin API's keys routes.
 */
export function adminWebhookRoutes(bus: Bus): Router {
  return webhookRouter(bus, async (req) => {
    const parsed = uuid.safeParse(req.params.projectId);
    if (!parsed.success) throw errors.notFound('Project');
    await bus.call(identity.listKeys, { projectId: parsed.data, limit: 1 });
    return { projectId: parsed.data, role: 'operator' };
  }, noLimit);
}
