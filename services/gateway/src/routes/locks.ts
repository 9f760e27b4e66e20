import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';

const fileIdsShell = z.object({ fileIds: z.array(z.unknown(), 'fileIds must be an array of file ids') });

/** Counted before each id is validated, so an oversized request fails with 413 as initiate-batch does. */
function checkBatchSize(body: unknown): void {
  const { fileIds } = parse(fileIdsShell, body);
  if (fileIds.length > lock.MAX_LOCK_FILES) throw errors.batchTooLarge('file ids', lock.MAX_LOCK_FILES);
}

/** Spec 4.9, mounted under /api/v1/projects/:projectId after auth and the project check. */
export function lockRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/locks', limitWrites, async (req, res) => {
    checkBatchSize(req.body);
    const body = parse(lock.acquireBodySchema, req.body);
    res.json(await bus.call(lock.acquire, { actor: actorOf(res), ...body }));
  });

  router.get('/locks', async (req, res) => {
    const query = parse(lock.listQuerySchema, req.query, 'query');
    res.json(await bus.call(lock.list, { actor: actorOf(res), ...query }));
  });

  router.delete('/locks', limitWrites, async (req, res) => {
    checkBatchSize(req.body);
    const body = parse(lock.releaseBodySchema, req.body);
    res.json(await bus.call(lock.release, { actor: actorOf(res), ...body }));
  });

  return router;
}
