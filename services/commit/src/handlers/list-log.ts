import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { LogService } from '../domain/log-service.ts';

export function serveListLog(bus: Bus, service: LogService): void {
  bus.serve(commit.listLog, ({ actor, branch, cursor, limit }) => service.list(actor, branch, cursor, limit));
}
