import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { TreeService } from '../domain/tree-service.ts';

export function serveLatestSequence(bus: Bus, service: TreeService): void {
  bus.serve(commit.latestSequence, ({ projectId }) => service.latestSequence(projectId));
}
