import { lock } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { LockService } from './domain/lock-service.ts';
import type { FenceService } from './domain/fence-service.ts';

/** The lock service's table: each contract it answers and the domain call that answers it. */
export function lockRpcs(locks: LockService, fences: FenceService): Rpc[] {
  return [
    rpc(lock.acquire, ({ actor, fileIds, note }) => locks.acquire(actor, fileIds, note)),
    rpc(lock.acquirePath, ({ actor, path, note }) => locks.acquirePath(actor, path, note)),
    rpc(lock.list, ({ actor, ...query }) => locks.list(actor, query)),
    rpc(lock.release, ({ actor, fileIds, force }) => locks.release(actor, fileIds, force)),
    rpc(lock.lockedFiles, async ({ projectId, fileIds }) => ({ fileIds: await locks.lockedFiles(projectId, fileIds) })),
    rpc(lock.fence, (request) => fences.fence(request)),
    rpc(lock.settleFence, (request) => fences.settle(request)),
  ];
}
