import { upload } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { RestorePreparer } from '../domain/restore-preparer.ts';

export function servePrepareRestore(bus: Bus, preparer: RestorePreparer): void {
  bus.serve(upload.prepareRestore, ({ actor, restoreId, targets }) => preparer.prepare(actor, restoreId, targets));
}
