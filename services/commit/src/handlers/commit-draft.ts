import { drafts } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DraftService } from '../domain/draft-service.ts';

export function serveCommitDraft(bus: Bus, service: DraftService): void {
  bus.serve(drafts.finalize, ({ actor, draftId, idempotencyKey }) => service.commit(actor, draftId, idempotencyKey));
}
