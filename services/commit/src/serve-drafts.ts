import type { Bus } from '@lode/bus';
import type { DraftService } from './domain/draft-service.ts';
import { serveCreateDraft } from './handlers/create-draft.ts';
import { serveStageDraftFiles } from './handlers/stage-draft-files.ts';
import { serveGetDraft } from './handlers/get-draft.ts';
import { serveCommitDraft } from './handlers/commit-draft.ts';
import { serveDeleteDraft } from './handlers/delete-draft.ts';

/** Draft commits (issue 18): their RPCs. */
export function serveDrafts(bus: Bus, service: DraftService): void {
  serveCreateDraft(bus, service);
  serveStageDraftFiles(bus, service);
  serveGetDraft(bus, service);
  serveCommitDraft(bus, service);
  serveDeleteDraft(bus, service);
}
