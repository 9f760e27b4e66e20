import { Router, type RequestHandler } from 'express';
import { restore } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parseBatch } from '../http/parse.ts';
import { idempotencyKeyOf } from '../http/idempotency-key.ts';

/** Spec 4.8, mounted under /api/v1/projects/:projectId after auth and the project check. */
export function restoreRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/restore', limitWrites, async (req, res) => {
    const body = parseBatch(restore.restoreBodySchema, req.body, { field: 'files', max: restore.MAX_RESTORE_FILES, what: 'files' });
    const idempotencyKey = idempotencyKeyOf(req);
    res.json(await bus.call(restore.create, { actor: actorOf(res), restore: body, idempotencyKey }, { timeoutMs: restore.RESTORE_TIMEOUT_MS }));
  });

  return router;
}
