import { Router, type RequestHandler } from 'express';
import { commit, plugins } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';
import { confirmTimeoutMs } from './uploads.ts';

/** Shared plugins (docs/api.md, Plugins), mounted under /api/v1/projects/:projectId after auth and the project check. */
export function pluginRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.get('/plugins', async (req, res) => {
    const { cursor, limit } = parse(commit.pageQuerySchema, req.query, 'query');
    res.json(await bus.call(plugins.list, { actor: actorOf(res), cursor, limit }));
  });

  router.get('/plugins/:name/versions', async (req, res) => {
    const name = parse(plugins.pluginName, req.params.name, 'name');
    const { cursor, limit } = parse(commit.pageQuerySchema, req.query, 'query');
    res.json(await bus.call(plugins.listVersions, { actor: actorOf(res), name, cursor, limit }));
  });

  router.post('/plugins/:name/versions/initiate', limitWrites, async (req, res) => {
    const name = parse(plugins.pluginName, req.params.name, 'name');
    const body = parse(plugins.initiateBodySchema, req.body);
    res.json(await bus.call(plugins.initiate, { actor: actorOf(res), name, ...body }));
  });

  // The same allowance as a file's confirm: an S3 driver may read the bytes once to check their SHA-256.
  router.post('/plugins/:name/versions/confirm', limitWrites, async (req, res) => {
    const name = parse(plugins.pluginName, req.params.name, 'name');
    const body = parse(plugins.confirmBodySchema, req.body);
    res.status(201).json(await bus.call(plugins.confirm, { actor: actorOf(res), name, ...body }, { timeoutMs: confirmTimeoutMs(body.size) }));
  });

  return router;
}
