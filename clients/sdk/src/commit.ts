import type { LodeClient } from './client.ts';
import { isRefusal, LodeApiError } from './errors.ts';
import { chunk } from './limit.ts';
import type { CommitCreated, CommitRequest } from './types.ts';

/** The most entries one `POST /commits` takes; more go through a draft commit. */
export const MAX_COMMIT_ENTRIES = 25_000;

export interface CommitOptions {
  idempotencyKey: string;
  signal?: AbortSignal;
  /** Entries up to which one `POST /commits` is sent, and per draft call above it (at most, and by default, 25,000). */
  maxEntries?: number;
  /**
   * The draft an earlier call with this key made (told by `onDraft`), when its answer never came: the
   * commit goes on through that draft, so a commit that landed is answered again instead of refused.
   */
  draftId?: string;
  /** Told of a new draft's id before anything is staged in it, e.g. to journal it. */
  onDraft?: (draftId: string) => void | Promise<void>;
}

/**
 * One commit of any size: `POST /commits` up to 25,000 entries, otherwise a draft staged in parts of
 * 25,000 and committed at once. The idempotency key makes a retry (or a resumed push) commit once:
 * a draft's key is bound to that draft, so a resumed call passes the draft it made (`draftId`).
 */
export async function commitFiles(client: LodeClient, request: CommitRequest, options: CommitOptions): Promise<CommitCreated> {
  const { signal, idempotencyKey, maxEntries = MAX_COMMIT_ENTRIES } = options;
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_COMMIT_ENTRIES)
    throw new RangeError(`maxEntries must be a whole number from 1 to ${MAX_COMMIT_ENTRIES}`);
  if (options.draftId !== undefined) {
    const resumed = await resumeDraft(client, options.draftId, request, { signal, idempotencyKey, maxEntries });
    if (resumed) return resumed;
  }
  if (request.fileVersions.length <= maxEntries) return client.createCommit(request, { signal, idempotencyKey });
  const draft = await client.createDraft(request.message, request.branch, { signal });
  await options.onDraft?.(draft.id);
  return stageAndCommit(client, draft.id, request, { signal, idempotencyKey, maxEntries, resumed: false });
}

/**
 * Refused (a lock, a stale version): nothing was committed and the caller may try again with another
 * key, so the draft is tidied away (its own failure is not the story). Otherwise (no answer, a 5xx)
 * the commit may have landed, and the draft is kept for a resumed call to replay.
 */
async function tidyRefused(client: LodeClient, draftId: string, error: unknown): Promise<void> {
  if (isRefusal(error) && error.status !== 404) await client.deleteDraft(draftId).catch(() => undefined);
}

async function stage(client: LodeClient, draftId: string, request: CommitRequest, maxEntries: number, signal?: AbortSignal): Promise<void> {
  for (const part of chunk(request.fileVersions, maxEntries)) await client.addDraftFiles(draftId, part, { signal });
}

const isNotFound = (error: unknown) => error instanceof LodeApiError && error.status === 404;

interface DraftCommitOptions {
  signal?: AbortSignal;
  idempotencyKey: string;
  maxEntries: number;
  /** The draft was made by an interrupted call: it may be gone because that call's commit landed. */
  resumed: boolean;
}

/** Stages every part into the draft, then commits it with the key; a refused commit tidies the draft away. */
async function stageAndCommit(client: LodeClient, draftId: string, request: CommitRequest, options: DraftCommitOptions): Promise<CommitCreated> {
  const { signal, idempotencyKey } = options;
  try {
    await stage(client, draftId, request, options.maxEntries, signal).catch((error: unknown) => {
      // A resumed draft that is gone: its commit, if it landed, still answers to the key.
      if (!(options.resumed && isNotFound(error))) throw error;
    });
    return await client.commitDraft(draftId, { signal, idempotencyKey });
  } catch (error) {
    await tidyRefused(client, draftId, error);
    throw error;
  }
}

/**
 * Goes on with a draft an interrupted call made. Its parts are staged again first (staging the same
 * file again replaces its entry, and the call may have stopped half-way), then it is committed with
 * the same key. A draft that is gone (404) was committed — its key answers that commit again — or
 * expired or deleted uncommitted: then null, and the caller starts over.
 */
async function resumeDraft(
  client: LodeClient,
  draftId: string,
  request: CommitRequest,
  options: Omit<DraftCommitOptions, 'resumed'>,
): Promise<CommitCreated | null> {
  return stageAndCommit(client, draftId, request, { ...options, resumed: true }).catch((error: unknown) => {
    if (isNotFound(error)) return null;
    throw error;
  });
}
