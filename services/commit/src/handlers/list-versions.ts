import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { HistoryService } from '../domain/history-service.ts';

export function serveListVersions(bus: Bus, service: HistoryService): void {
  bus.serve(commit.listVersions, ({ actor, fileId, cursor, limit }) => service.list(actor, fileId, cursor, limit));
}
