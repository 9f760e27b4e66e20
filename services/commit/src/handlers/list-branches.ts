import { branches } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { BranchService } from '../domain/branch-service.ts';

export function serveListBranches(bus: Bus, service: BranchService): void {
  bus.serve(branches.list, ({ actor, cursor, limit }) => service.list(actor, cursor, limit));
}
