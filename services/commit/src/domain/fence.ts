import { randomUUID } from 'node:crypto';
import { lock, type Actor } from '@lode/contracts';
import type { Bus } from '@lode/bus';

/**
 * A commit's lock fence, asked of the lock service while the commit's versions are resolved, and in
 * place before its transaction opens (docs/architecture.md, the fence).
 */
export interface Fence {
  fenceId: string;
  /** When the transaction must have committed, on this process's monotonic clock. */
  deadline: number;
  /** Resolves once the fence is in place; rejects with the lock service's refusal (file_locked) or failure. */
  placed(): Promise<void>;
  /** Whether it was placed, so that it needs settling; waits for the answer. */
  wasPlaced(): Promise<boolean>;
}

/**
 * Starts fencing the files: another user's lock refuses the commit, and once placed the fence refuses
 * other users' lock requests until settled or expired. The deadline leaves a margin inside the
 * fence's lifetime, measured from before the call, so it ends before the fence can lapse.
 */
export function placeFence(bus: Bus, actor: Actor, fileIds: string[], ttlMs: number): Fence {
  const fenceId = randomUUID();
  const deadline = performance.now() + ttlMs - Math.min(5000, ttlMs / 4);
  const outcome = bus
    .call(lock.fence, { projectId: actor.projectId, userId: actor.userId, userName: actor.userName, fenceId, fileIds, ttlMs })
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  return {
    fenceId,
    deadline,
    async placed() {
      const failed = await outcome;
      if (failed) throw failed.error;
    },
    async wasPlaced() {
      return (await outcome) === undefined;
    },
  };
}
