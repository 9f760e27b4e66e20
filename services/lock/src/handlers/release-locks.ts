import { lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { LockService } from '../domain/lock-service.ts';

export function serveReleaseLocks(bus: Bus, service: LockService): void {
  bus.serve(lock.release, ({ actor, fileIds, force }) => service.release(actor, fileIds, force));
}
