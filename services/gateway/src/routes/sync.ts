import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { z } from 'zod';
import { errors } from '@lode/errors';
import { sync, type Actor, type ReplyOf } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';

const filesShell = z.object({ files: z.array(z.unknown(), 'files must be an array') });

const BATCH_HINT = 'send a larger workspace in batches of one session (docs/api.md, Sync)';

/** Spec 4.2, mounted under /api/v1/projects/:projectId after auth and the project check. A read: no write limit. */
export function syncRoutes(bus: Bus): Router {
  const router = Router({ mergeParams: true });

  router.post('/sync', async (req, res) => {
    // Counted before the entries are validated one by one, so an oversized batch fails fast with 413.
    const { files } = parse(filesShell, req.body);
    if (files.length > sync.MAX_SYNC_BATCH) throw errors.batchTooLarge('files', sync.MAX_SYNC_BATCH, BATCH_HINT);
    const body = parse(sync.syncBodySchema, req.body);
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
