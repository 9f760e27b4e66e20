import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { LogService } from '../domain/log-service.ts';

export function serveListCommitFiles(bus: Bus, service: LogService): void {
  bus.serve(commit.listCommitFiles, ({ actor, commitId, cursor, limit }) => service.files(actor, commitId, cursor, limit));
}
