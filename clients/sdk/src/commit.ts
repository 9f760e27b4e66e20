import type { LodeClient } from './client.ts';
import { chunk } from './limit.ts';
import type { CommitCreated, CommitRequest } from './types.ts';

/** The most entries one `POST /commits` takes; more go through a draft commit. */
export const MAX_COMMIT_ENTRIES = 25_000;

export interface CommitOptions {
  idempotencyKey: string;
  signal?: AbortSignal;
  /** Entries up to which one `POST /commits` is sent, and per draft call above it (at most, and by default, 25,000). */
  maxEntries?: number;
}

/**
 * One commit of any size: `POST /commits` up to 25,000 entries, otherwise a draft staged in parts of
 * 25,000 and committed at once. The idempotency key makes a retry (or a resumed push) commit once.
 */
export async function commitFiles(client: LodeClient, request: CommitRequest, options: CommitOptions): Promise<CommitCreated> {
  const { signal, idempotencyKey, maxEntries = MAX_COMMIT_ENTRIES } = options;
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_COMMIT_ENTRIES) throw new RangeError(`maxEntries must be a whole number from 1 to ${MAX_COMMIT_ENTRIES}`);
  if (request.fileVersions.length <= maxEntries) return client.createCommit(request, { signal, idempotencyKey });
  const draft = await client.createDraft(request.message, request.branch, { signal });
  try {
    for (const part of chunk(request.fileVersions, maxEntries)) await client.addDraftFiles(draft.id, part, { signal });
    return await client.commitDraft(draft.id, { signal, idempotencyKey });
  } catch (error) {
    // A draft left behind holds nothing visible; removing it is tidiness, so its own failure is not the story.
    await client.deleteDraft(draft.id).catch(() => undefined);
    throw error;
  }
}
