import { branches } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { MergeService } from '../domain/merge-service.ts';

export function serveMergeBranch(bus: Bus, service: MergeService): void {
  bus.serve(branches.merge, ({ actor, source, into, message, resolutions }) => service.merge(actor, { source, into, message, resolutions }));
}
