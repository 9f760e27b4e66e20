import type { Request } from 'express';
import { commit, download, MAX_PATH_LENGTH, restore, sync, upload } from '@lode/contracts';

/** Every body but a batch's: an org, a key, a lock request, a webhook are a few hundred bytes. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** A sign-in is read before anyone is known: its body is one link token. */
export const SIGN_IN_BODY_LIMIT = 16 * 1024;

/** A path at its longest: MAX_PATH_LENGTH UTF-16 units, each up to 3 bytes of UTF-8. */
const PATH_BYTES = MAX_PATH_LENGTH * 3;
/** An entry of ids, a version, a hash and their names, indented as a pretty-printer would. */
const ENTRY_BYTES = 160;
/** What a batch carries besides its entries: a commit message, a branch, a session. */
const ENVELOPE_BYTES = 64 * 1024;

const ids = (entries: number) => entries * ENTRY_BYTES + ENVELOPE_BYTES;
const paths = (entries: number) => entries * (PATH_BYTES + ENTRY_BYTES) + ENVELOPE_BYTES;

/**
 * The routes whose largest batch does not fit DEFAULT_BODY_LIMIT, each sized from its contract's
 * batch limit, matched on the path below /api/v1/projects/:projectId (as express routes it: any case,
 * an optional trailing slash). Only an authenticated caller's body is read against them.
 */
const BATCH_ROUTES: readonly { path: RegExp; bytes: number }[] = [
  { path: /^\/commits\/?$/i, bytes: ids(commit.MAX_COMMIT_ENTRIES) },
  { path: /^\/drafts\/[^/]+\/files\/?$/i, bytes: ids(commit.MAX_COMMIT_ENTRIES) },
  { path: /^\/branches\/[^/]+\/merge\/?$/i, bytes: ids(commit.MAX_COMMIT_ENTRIES) },
  { path: /^\/restore\/?$/i, bytes: ids(restore.MAX_RESTORE_FILES) },
  { path: /^\/sync\/?$/i, bytes: paths(sync.MAX_SYNC_BATCH) },
  { path: /^\/files\/upload\/initiate-batch\/?$/i, bytes: paths(upload.MAX_INITIATE_BATCH) },
  { path: /^\/files\/download-urls\/?$/i, bytes: paths(download.MAX_DOWNLOAD_ENTRIES) },
];

/**
 * The body limit of a project route: its batch's size, or DEFAULT_BODY_LIMIT, never more than
 * `ceiling` (LODE_BODY_LIMIT, the operator's bound on any body).
 */
export function projectBodyLimit(ceiling: number): (req: Request) => number {
  return (req) => {
    const batch = req.method === 'POST' ? BATCH_ROUTES.find((route) => route.path.test(req.path)) : undefined;
    return Math.min(ceiling, batch?.bytes ?? DEFAULT_BODY_LIMIT);
  };
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `16mb`, `512kb`, `1048576`: LODE_BODY_LIMIT's forms, in bytes (1 kb = 1024 bytes). */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!match) throw new Error(`"${text}" is not a byte size (such as 16mb, 512kb or 1048576)`);
  return Math.floor(Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1));
}
