import { sync } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { SyncService } from './domain/sync-service.ts';

/** The sync service's table: each contract it answers and the domain call that answers it. */
export function syncRpcs(syncService: SyncService): Rpc[] {
  return [
    rpc(sync.compare, (request) => syncService.compare(request)),
    rpc(sync.changes, (request) => syncService.changes(request)),
    rpc(sync.listRemoteOnly, ({ actor, branch, sessionId, after, limit }) => syncService.listRemoteOnly(actor, branch, sessionId, after, limit)),
  ];
}
