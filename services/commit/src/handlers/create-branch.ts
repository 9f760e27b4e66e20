import { branches } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { BranchService } from '../domain/branch-service.ts';

export function serveCreateBranch(bus: Bus, service: BranchService): void {
  bus.serve(branches.create, ({ actor, name, from }) => service.create(actor, name, from));
}
