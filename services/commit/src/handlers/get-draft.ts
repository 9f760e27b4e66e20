import { drafts } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DraftService } from '../domain/draft-service.ts';

export function serveGetDraft(bus: Bus, service: DraftService): void {
  bus.serve(drafts.get, ({ actor, draftId }) => service.get(actor, draftId));
}
