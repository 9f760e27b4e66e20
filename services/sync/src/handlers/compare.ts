import { sync } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { SyncService } from '../domain/sync-service.ts';

export function serveCompare(bus: Bus, service: SyncService): void {
  bus.serve(sync.compare, (request) => service.compare(request));
}
