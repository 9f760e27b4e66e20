import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse, parseBatch } from '../http/parse.ts';

const batchBody = z.object({ files: z.array(z.unknown()).min(1, 'files must list 1 to 1,000 entries') });

/** The size an entry declares, for the batch's deadline; an entry without a sane one fails on its own upstream. */
function declaredSize(entry: unknown): number {
  const size: unknown = typeof entry === 'object' && entry !== null ? (entry as { size?: unknown }).size : undefined;
  return typeof size === 'number' && size > 0 && size <= upload.MAX_FILE_SIZE ? size : 0;
}

/**
 * A confirm's allowance for all the batch's bytes, plus 50 ms an entry: on S3 each object is read
 * back (a request each, a few at a time), which on a loaded host outlasted 30 s for 1,000 small files.
 */
function confirmBatchTimeoutMs(entries: readonly unknown[]): number {
  return confirmTimeoutMs(entries.reduce<number>((total, entry) => total + declaredSize(entry), 0)) + entries.length * 50;
}

/**
 * Confirm may read the object once to check its SHA-256 (S3 drivers): allow 30 s plus a second per
 * 10 MB, a tenth of what an idle store reads, since a store serving other work reads far slower; a
 * small file still fails fast. A confirm that outlasts it goes on in the upload service, and the
 * client's retry joins that read or finds the version recorded.
 */
export function confirmTimeoutMs(size: number): number {
  return 30_000 + Math.ceil(size / 10_000_000) * 1000;
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

  // One write token for the whole batch, as initiate-batch; entries are validated one by one upstream.
  router.post('/files/upload/confirm-batch', limitWrites, async (req, res) => {
    const { files } = parseBatch(batchBody, req.body, { field: 'files', max: upload.MAX_CONFIRM_BATCH, what: 'files' });
    res.json(await bus.call(upload.confirmBatch, { actor: actorOf(res), files }, { timeoutMs: confirmBatchTimeoutMs(files) }));
  });

  return router;
}
