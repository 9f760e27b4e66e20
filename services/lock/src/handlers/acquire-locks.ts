import { lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { LockService } from '../domain/lock-service.ts';

export function serveAcquireLocks(bus: Bus, service: LockService): void {
  bus.serve(lock.acquire, ({ actor, fileIds, note }) => service.acquire(actor, fileIds, note));
}
