import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { commit, uuid } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse, parseBatch } from '../http/parse.ts';
import { idempotencyKeyOf } from '../http/idempotency-key.ts';

const versionsQuery = z.object({
  cursor: z.string().min(1).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(commit.MAX_PAGE_SIZE, `must be at most ${commit.MAX_PAGE_SIZE}`)
    .default(commit.DEFAULT_PAGE_SIZE),
});

const DRAFT_HINT = 'larger pushes are staged with draft commits and finalized as one commit (docs/api.md)';

/** Spec 4.6 and 4.7, mounted under /api/v1/projects/:projectId after auth and the project check. */
export function commitRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/commits', limitWrites, async (req, res) => {
    const body = parseBatch(commit.commitBodySchema, req.body, { field: 'fileVersions', max: commit.MAX_COMMIT_ENTRIES, what: 'file versions', hint: DRAFT_HINT });
    const idempotencyKey = idempotencyKeyOf(req);
    res.status(201).json(await bus.call(commit.create, { actor: actorOf(res), commit: commit.toColumns(body), idempotencyKey }));
  });

  router.get('/files/:fileId/versions', async (req, res) => {
    const fileId = parse(uuid, req.params.fileId, 'fileId');
    const { cursor, limit } = parse(versionsQuery, req.query, 'query');
    res.json(await bus.call(commit.listVersions, { actor: actorOf(res), fileId, cursor, limit }));
  });

  return router;
}
