import { branches } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { BranchService } from '../domain/branch-service.ts';

export function serveDeleteBranch(bus: Bus, service: BranchService): void {
  bus.serve(branches.remove, ({ actor, name }) => service.remove(actor, name));
}
