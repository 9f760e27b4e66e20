import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';

const batchBody = z.object({ files: z.array(z.unknown()).min(1, 'files must list 1 to 1,000 entries') });

/**
 * Confirm may read the object once to check its SHA-256 (S3 drivers): allow 30 s plus a second per
 * 50 MB, so a 5 GiB file is not cut off while a small one still fails fast.
 */
function confirmTimeoutMs(size: number): number {
  return 30_000 + Math.ceil(size / 50_000_000) * 1000;
}

/** Spec 4.3–4.5, mounted under /api/v1/projects/:projectId after auth and the project check. */
export function uploadRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/files/upload/initiate', limitWrites, async (req, res) => {
    const file = parse(upload.initiateFileSchema, req.body);
    res.json(await bus.call(upload.initiate, { actor: actorOf(res), file }));
  });

  router.post('/files/upload/initiate-batch', limitWrites, async (req, res) => {
    const { files } = parse(batchBody, req.body);
    if (files.length > upload.MAX_INITIATE_BATCH) throw errors.batchTooLarge('files', upload.MAX_INITIATE_BATCH);
    res.json(await bus.call(upload.initiateBatch, { actor: actorOf(res), files }));
  });

  router.post('/files/upload/confirm', limitWrites, async (req, res) => {
    const body = parse(upload.confirmBodySchema, req.body);
    res.json(await bus.call(upload.confirm, { actor: actorOf(res), upload: body }, { timeoutMs: confirmTimeoutMs(body.size) }));
  });

  return router;
}
