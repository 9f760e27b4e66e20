import { lock } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { FenceService } from '../domain/fence-service.ts';

export function serveFence(bus: Bus, service: FenceService): void {
  bus.serve(lock.fence, (request) => service.fence(request));
}
