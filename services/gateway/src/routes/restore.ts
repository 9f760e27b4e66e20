import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { restore } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';
import { idempotencyKeyOf } from '../http/idempotency-key.ts';

const filesShell = z.object({ files: z.array(z.unknown(), 'files must be an array') });

/** Spec 4.8, mounted under /api/v1/projects/:projectId after auth and the project check. */
export function restoreRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/restore', limitWrites, async (req, res) => {
    // Counted before the entries are validated one by one, so an oversized restore fails fast with 413.
    const { files } = parse(filesShell, req.body);
    if (files.length > restore.MAX_RESTORE_FILES) throw errors.batchTooLarge('files', restore.MAX_RESTORE_FILES);
    const body = parse(restore.restoreBodySchema, req.body);
    const idempotencyKey = idempotencyKeyOf(req);
    res.json(await bus.call(restore.create, { actor: actorOf(res), restore: body, idempotencyKey }, { timeoutMs: restore.RESTORE_TIMEOUT_MS }));
  });

  return router;
}
