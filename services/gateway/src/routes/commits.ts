import { Router, type RequestHandler } from 'express';
import { commit, uuid } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse, parseBatch } from '../http/parse.ts';
import { idempotencyKeyOf } from '../http/idempotency-key.ts';

const DRAFT_HINT = 'larger pushes are staged with draft commits and finalized as one commit (docs/api.md)';

/** The commit log, the project tree and its folders (docs/api.md), mounted under /api/v1/projects/:projectId after auth and the project check. */
export function commitRoutes(bus: Bus, limitWrites: RequestHandler): Router {
  const router = Router({ mergeParams: true });

  router.post('/commits', limitWrites, async (req, res) => {
    const body = parseBatch(commit.commitBodySchema, req.body, { field: 'fileVersions', max: commit.MAX_COMMIT_ENTRIES, what: 'file versions', hint: DRAFT_HINT });
    const idempotencyKey = idempotencyKeyOf(req);
    res.status(201).json(await bus.call(commit.create, { actor: actorOf(res), commit: commit.toColumns(body), idempotencyKey }));
  });

  router.get('/files/:fileId/versions', async (req, res) => {
    const fileId = parse(uuid, req.params.fileId, 'fileId');
    const { cursor, limit } = parse(commit.pageQuerySchema, req.query, 'query');
    res.json(await bus.call(commit.listVersions, { actor: actorOf(res), fileId, cursor, limit }));
  });

  router.get('/commits', async (req, res) => {
    const query = parse(commit.logQuerySchema, req.query, 'query');
    res.json(await bus.call(commit.listLog, { actor: actorOf(res), ...query }));
  });

  router.get('/commits/:commitId', async (req, res) => {
    const commitId = parse(uuid, req.params.commitId, 'commitId');
    res.json(await bus.call(commit.getCommit, { actor: actorOf(res), commitId }));
  });

  router.get('/commits/:commitId/files', async (req, res) => {
    const commitId = parse(uuid, req.params.commitId, 'commitId');
    const { cursor, limit } = parse(commit.pageQuerySchema, req.query, 'query');
    res.json(await bus.call(commit.listCommitFiles, { actor: actorOf(res), commitId, cursor, limit }));
  });

  router.get('/files', async (req, res) => {
    const query = parse(commit.treeQuerySchema, req.query, 'query');
    res.json(await bus.call(commit.listTree, { actor: actorOf(res), ...query }));
  });

  router.get('/folders', async (req, res) => {
    const query = parse(commit.treeQuerySchema, req.query, 'query');
    res.json(await bus.call(commit.listFolder, { actor: actorOf(res), ...query }));
  });

  return router;
}
