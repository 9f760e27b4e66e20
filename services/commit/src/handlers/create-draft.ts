import { drafts } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { DraftService } from '../domain/draft-service.ts';

export function serveCreateDraft(bus: Bus, service: DraftService): void {
  bus.serve(drafts.create, ({ actor, message, branch }) => service.create(actor, { message, branch }));
}
