import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { CommitService } from '../domain/commit-service.ts';

export function serveCreateCommit(bus: Bus, service: CommitService): void {
  bus.serve(commit.create, ({ actor, commit: body, idempotencyKey, kind }) => service.create(actor, body, idempotencyKey, kind));
}
