import { drafts } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DraftService } from '../domain/draft-service.ts';

export function serveStageDraftFiles(bus: Bus, service: DraftService): void {
  bus.serve(drafts.stage, ({ actor, draftId, entries }) => service.stage(actor, draftId, entries));
}
