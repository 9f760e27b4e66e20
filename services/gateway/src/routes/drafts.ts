import { Router, type RequestHandler } from 'express';
import { commit, drafts, uuid } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse, parseBatch } from '../http/parse.ts';
import { idempotencyKeyOf } from '../http/idempotency-key.ts';

const DRAFT_HINT = 'stage larger pushes over several calls';

/**
 * Draft commits (spec 4.6, docs/api.md), mounted under /api/v1/projects/:projectId after auth and
 * the project check. Every call, reads included, counts against the write rate limit.
 */
export function draftRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/drafts', limitWrites, async (req, res) => {
    const body = parse(drafts.createBodySchema, req.body);
    res.status(201).json(await bus.call(drafts.create, { actor: actorOf(res), ...body }));
  });

  router.get('/drafts/:draftId', limitWrites, async (req, res) => {
    const draftId = parse(uuid, req.params.draftId, 'draftId');
    res.json(await bus.call(drafts.get, { actor: actorOf(res), draftId }));
  });

  router.post('/drafts/:draftId/files', limitWrites, async (req, res) => {
    const draftId = parse(uuid, req.params.draftId, 'draftId');
    const body = parseBatch(drafts.stageBodySchema, req.body, { field: 'fileVersions', max: commit.MAX_COMMIT_ENTRIES, what: 'file versions', hint: DRAFT_HINT });
    res.json(await bus.call(drafts.stage, { actor: actorOf(res), draftId, entries: commit.entryColumnsOf(body.fileVersions) }));
  });

  router.post('/drafts/:draftId/commit', limitWrites, async (req, res) => {
    const draftId = parse(uuid, req.params.draftId, 'draftId');
    const idempotencyKey = idempotencyKeyOf(req);
    // A draft of a million files takes minutes, not the bus's default 30 s.
    res.status(201).json(await bus.call(drafts.finalize, { actor: actorOf(res), draftId, idempotencyKey }, { timeoutMs: drafts.FINALIZE_TIMEOUT_MS }));
  });

  router.delete('/drafts/:draftId', limitWrites, async (req, res) => {
    const draftId = parse(uuid, req.params.draftId, 'draftId');
    res.json(await bus.call(drafts.remove, { actor: actorOf(res), draftId }));
  });

  return router;
}
