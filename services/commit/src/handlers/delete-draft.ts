import { drafts } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DraftService } from '../domain/draft-service.ts';

export function serveDeleteDraft(bus: Bus, service: DraftService): void {
  bus.serve(drafts.remove, ({ actor, draftId }) => service.remove(actor, draftId));
}
