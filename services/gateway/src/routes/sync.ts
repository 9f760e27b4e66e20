import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { sync, type Actor, type ReplyOf } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parseBatch } from '../http/parse.ts';

const BATCH_HINT = 'send a larger workspace in batches of one session (docs/api.md, Sync)';

/** Spec 4.2, mounted under /api/v1/projects/:projectId after auth and the project check. A read: no write limit. */
export function syncRoutes(bus: Bus): Router {
  const router = Router({ mergeParams: true });

  router.post('/sync', async (req, res) => {
    const body = parseBatch(sync.syncBodySchema, req.body, { field: 'files', max: sync.MAX_SYNC_BATCH, what: 'files', hint: BATCH_HINT });
    const actor = actorOf(res);
    const batch = await bus.call(sync.compare, { actor, body });
    res.type('application/json');
    await pipeline(Readable.from(responseBody(bus, actor, body.branch, batch)), res);
  });

  return router;
}

/**
 * The response as it is produced: the batch's rows, then the remote-only files page by page, so
 * neither this process nor the service ever holds the project's whole tree.
 */
async function* responseBody(bus: Bus, actor: Actor, branch: string | undefined, batch: ReplyOf<typeof sync.compare>): AsyncGenerator<string> {
  yield '{"files":[';
  let separator = '';
  for await (const files of pages(bus, actor, branch, batch)) {
    if (files.length === 0) continue;
    yield separator + JSON.stringify(files).slice(1, -1);
    separator = ',';
  }
  yield `],"latestCommitSeq":${batch.latestCommitSeq}}`;
}

async function* pages(bus: Bus, actor: Actor, branch: string | undefined, batch: ReplyOf<typeof sync.compare>): AsyncGenerator<sync.SyncRow[]> {
  yield batch.files;
  const sessionId = batch.remoteOnlySession;
  if (sessionId === null) return;
  let after: string | null = '';
  while (after !== null) {
    const page: ReplyOf<typeof sync.listRemoteOnly> = await bus.call(sync.listRemoteOnly, { actor, branch, sessionId, after });
    yield page.files;
    after = page.after;
  }
}
