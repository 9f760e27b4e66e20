import { errors } from '@lode/errors';
import type { Actor, commit } from '@lode/contracts';
import { replayIdempotent, type Database, type IdempotencyScope, type Queryable } from '@lode/db';
import type { IdempotencyRepository } from '../repo/idempotency-repo.ts';
import type { SmallRecorded } from './commit-recorder.ts';

/** A commit request's X-Idempotency-Key (none: no guard) and the fingerprint a retry must match. */
export interface IdempotencyGuard {
  scope: IdempotencyScope | undefined;
  requestHash: string;
}

export function idempotencyScope(actor: Actor, key: string | undefined): IdempotencyScope | undefined {
  return key === undefined ? undefined : { projectId: actor.projectId, keyId: actor.keyId, key };
}

/** A commit's reply, and whether it answers an outcome recorded earlier under the key instead of a commit made. */
export interface CommittedOnce {
  reply: commit.Commit;
  replayed: boolean;
}

/** A replay answers from the record alone, before any work; undefined when there is none. */
export async function replayEarlier(db: Database, idempotency: IdempotencyRepository, guard: IdempotencyGuard): Promise<commit.Commit | undefined> {
  const earlier = guard.scope && (await idempotency.find(db, guard.scope));
  return earlier ? replayIdempotent(earlier, guard.requestHash) : undefined;
}

/**
 * Inside the commit's transaction: claims the key (a racing duplicate answers 409 in progress),
 * replays an outcome recorded meanwhile, or runs `write` and records its outcome with it.
 */
export async function commitOnce(
  tx: Queryable,
  idempotency: IdempotencyRepository,
  guard: IdempotencyGuard,
  write: () => Promise<commit.Commit>,
): Promise<CommittedOnce> {
  const { scope, requestHash } = guard;
  if (scope) {
    if (!(await idempotency.tryClaim(tx, scope))) throw errors.idempotencyInProgress();
    const finished = await idempotency.find(tx, scope);
    if (finished) return { reply: replayIdempotent(finished, requestHash), replayed: true };
  }
  const reply = await write();
  if (scope) await idempotency.save(tx, scope, { requestHash, response: reply });
  return { reply, replayed: false };
}

/**
 * commitOnce's answer for a commit made in one statement (CommitRecorder.recordSmall), which claims
 * the key, looks its outcome up and records its own as commitOnce does, each in a statement of its own;
 * undefined when it found no branch and left the commit to the transaction.
 */
export function answerRecorded(recorded: SmallRecorded, guard: IdempotencyGuard): CommittedOnce | undefined {
  switch (recorded.outcome) {
    case 'branch_missing':
      return undefined;
    case 'in_progress':
      throw errors.idempotencyInProgress();
    case 'replayed':
      return { reply: replayIdempotent(recorded.stored, guard.requestHash), replayed: true };
    case 'committed':
      return { reply: recorded.reply, replayed: false };
  }
}
