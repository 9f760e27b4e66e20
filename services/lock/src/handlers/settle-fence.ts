import { lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { FenceService } from '../domain/fence-service.ts';

export function serveSettleFence(bus: Bus, service: FenceService): void {
  bus.serve(lock.settleFence, (request) => service.settle(request));
}
