import { Router, type RequestHandler } from 'express';
import { errors } from '@lode/errors';
import { branches, commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';

/** Counted before each resolution is validated, so an oversized merge fails with 413 as a commit does. */
function checkResolutionCount(body: unknown): void {
  const resolutions: unknown = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).resolutions : undefined;
  if (Array.isArray(resolutions) && resolutions.length > commit.MAX_COMMIT_ENTRIES) throw errors.batchTooLarge('resolutions', commit.MAX_COMMIT_ENTRIES);
}

/** Branches and merge (docs/api.md, Branches), mounted under /api/v1/projects/:projectId after auth and the project check. */
export function branchRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.get('/branches', async (req, res) => {
    const { cursor, limit } = parse(commit.pageQuerySchema, req.query, 'query');
    res.json(await bus.call(branches.list, { actor: actorOf(res), cursor, limit }));
  });

  router.post('/branches', limitWrites, async (req, res) => {
    const body = parse(branches.createBodySchema, req.body);
    res.status(201).json(await bus.call(branches.create, { actor: actorOf(res), ...body }));
  });

  router.delete('/branches/:name', limitWrites, async (req, res) => {
    const name = parse(commit.branchName, req.params.name, 'name');
    res.json(await bus.call(branches.remove, { actor: actorOf(res), name }));
  });

  router.post('/branches/:name/merge', limitWrites, async (req, res) => {
    const source = parse(commit.branchName, req.params.name, 'name');
    checkResolutionCount(req.body);
    const body = parse(branches.mergeBodySchema, req.body);
    res.status(201).json(await bus.call(branches.merge, { actor: actorOf(res), source, ...body }));
  });

  return router;
}
