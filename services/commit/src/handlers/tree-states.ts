import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { TreeService } from '../domain/tree-service.ts';

export function serveTreeStates(bus: Bus, service: TreeService): void {
  bus.serve(commit.treeStates, async ({ projectId, fileIds }) => ({ files: await service.mainStates(projectId, fileIds) }));
}
