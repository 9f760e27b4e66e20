import { lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { LockService } from '../domain/lock-service.ts';

export function serveListLocks(bus: Bus, service: LockService): void {
  bus.serve(lock.list, ({ actor, ...query }) => service.list(actor, query));
}
