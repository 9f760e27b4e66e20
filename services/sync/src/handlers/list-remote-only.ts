import { sync } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { SyncService } from '../domain/sync-service.ts';

export function serveListRemoteOnly(bus: Bus, service: SyncService): void {
  bus.serve(sync.listRemoteOnly, ({ actor, branch, sessionId, after, limit }) => service.listRemoteOnly(actor, branch, sessionId, after, limit));
}
