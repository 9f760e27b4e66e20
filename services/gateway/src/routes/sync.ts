import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { sync, type Actor, type ReplyOf } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { actorOf } from '../auth/middleware.ts';
import { parseBatch } from '../http/parse.ts';

const BATCH_HINT = 'send a larger workspace in batches of one session (docs/api.md, Sync)';

/** POST /sync (docs/api.md, Sync), mounted under /api/v1/projects/:projectId after auth and the project check. A read: no write limit. */
export function syncRoutes(bus: Bus): Router {
  const router = Router({ mergeParams: true });

  router.post('/sync', async (req, res) => {
    const { files, includeRemoteOnly, branch, session } = parseBatch(sync.syncBodySchema, req.body, {
      field: 'files',
      max: sync.MAX_SYNC_BATCH,
      what: 'files',
      hint: BATCH_HINT,
    });
    const actor = actorOf(res);
    const { keys, sha256s, baseVersions } = files;
    const batch = await bus.call(sync.compare, { actor, files: { keys, sha256s, baseVersions }, includeRemoteOnly, branch, session });
    res.type('application/json');
    await pipeline(Readable.from(responseBody(bus, actor, branch, files, batch)), res);
  });

  return router;
}

/**
 * The response as it is produced: the batch's rows, then the remote-only files page by page, so
 * neither this process nor the service ever holds the project's whole tree.
 */
async function* responseBody(
  bus: Bus,
  actor: Actor,
  branch: string | undefined,
  files: sync.ListedFiles,
  batch: ReplyOf<typeof sync.compare>,
): AsyncGenerator<string> {
  yield '{"files":[';
  let separator = '';
  for await (const page of pages(bus, actor, branch, files, batch)) {
    if (page.paths.length === 0) continue;
    yield separator + rowsJson(page);
    separator = ',';
  }
  yield `],"latestCommitSeq":${batch.latestCommitSeq}}`;
}

/** A page of rows and the paths they answer, with the listed hashes where the page answers the batch. */
interface Page {
  paths: readonly string[];
  rows: sync.SyncColumns;
  listedSha256s?: readonly string[];
}

async function* pages(bus: Bus, actor: Actor, branch: string | undefined, files: sync.ListedFiles, batch: ReplyOf<typeof sync.compare>): AsyncGenerator<Page> {
  yield { paths: files.paths, rows: batch.rows, listedSha256s: files.sha256s };
  const sessionId = batch.remoteOnlySession;
  if (sessionId === null) return;
  let after: string | null = '';
  while (after !== null) {
    const page: ReplyOf<typeof sync.listRemoteOnly> = await bus.call(sync.listRemoteOnly, { actor, branch, sessionId, after });
    yield page;
    after = page.after;
  }
}

/**
 * The rows' JSON (docs/api.md, Sync) from the columns; an up_to_date row's remote hash is the
 * listed one. Row objects serialized by one JSON.stringify are faster than writing each row's JSON
 * field by field.
 */
function rowsJson({ paths, rows, listedSha256s }: Page): string {
  const { statuses, fileIds, remoteVersions, remoteSha256s, remoteCommitSeqs, remoteSizes } = rows;
  if (statuses.length !== paths.length) throw new Error(`sync answered ${statuses.length} rows for ${paths.length} paths`);
  const objects = paths.map((path, i) => ({
    path,
    status: statuses[i],
    fileId: fileIds[i],
    remoteVersion: remoteVersions[i],
    remoteSha256: remoteSha256s[i] ?? (statuses[i] === 'up_to_date' ? (listedSha256s?.[i] ?? null) : null),
    remoteCommitSeq: remoteCommitSeqs[i],
    remoteSize: remoteSizes[i],
  }));
  return JSON.stringify(objects).slice(1, -1);
}
