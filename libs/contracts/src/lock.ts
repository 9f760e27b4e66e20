import { z } from 'zod';
import { defineContract } from './contract.ts';
import { uuid } from './common.ts';
import { MAX_COMMIT_ENTRIES } from './commit.ts';

// ---- Commit fence: the commit service's side of lock enforcement (docs/architecture.md) ----------

/**
 * Before its transaction, the commit service fences the files it is about to commit: the lock
 * service refuses (`file_locked`, with `lockedFiles`) if another user holds a lock on any of them,
 * and otherwise records a fence that makes other users' lock requests on those files conflict until
 * the fence is settled or expires (`ttlMs`), so no lock can slip in between the check and the commit.
 */
export const fence = defineContract(
  'lock',
  'fence',
  z.object({
    projectId: uuid,
    userId: uuid,
    fenceId: uuid,
    fileIds: z.array(uuid).min(1).max(MAX_COMMIT_ENTRIES),
    ttlMs: z.number().int().min(1000),
  }),
  z.object({ fenced: z.literal(true) }),
);

/**
 * After the transaction: `committed: true` releases the committer's own locks on the fenced files
 * and the fence; `committed: false` (the commit failed) drops the fence and keeps every lock.
 */
export const settleFence = defineContract(
  'lock',
  'settle_fence',
  z.object({ projectId: uuid, fenceId: uuid, committed: z.boolean() }),
  z.object({ releasedLocks: z.number().int().min(0) }),
);
