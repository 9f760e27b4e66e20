import { restore } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { RestoreService } from './domain/restore-service.ts';

/** The restore service's table: each contract it answers and the domain call that answers it. */
export function restoreRpcs(restoreService: RestoreService): Rpc[] {
  return [rpc(restore.create, ({ actor, restore: body, idempotencyKey }) => restoreService.restore(actor, body, idempotencyKey))];
}
