import { Router } from 'express';
import { download } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parseBatch } from '../http/parse.ts';

/** Batch download URLs (docs/api.md), mounted under /api/v1/projects/:projectId after auth and the project check. A read: no write limit. */
export function downloadRoutes(bus: Bus): Router {
  const router = Router({ mergeParams: true });

  router.post('/files/download-urls', async (req, res) => {
    const { files, branch } = parseBatch(download.urlsBodySchema, req.body, { field: 'files', max: download.MAX_DOWNLOAD_ENTRIES, what: 'files' });
    res.json(await bus.call(download.urls, { actor: actorOf(res), branch, files }));
  });

  return router;
}
