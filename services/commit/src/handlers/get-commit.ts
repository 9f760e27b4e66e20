import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { LogService } from '../domain/log-service.ts';

export function serveGetCommit(bus: Bus, service: LogService): void {
  bus.serve(commit.getCommit, ({ actor, commitId }) => service.get(actor, commitId));
}
