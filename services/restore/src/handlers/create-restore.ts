import { restore } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { RestoreService } from '../domain/restore-service.ts';

export function serveCreateRestore(bus: Bus, service: RestoreService): void {
  bus.serve(restore.create, ({ actor, restore: body, idempotencyKey }) => service.restore(actor, body, idempotencyKey));
}
