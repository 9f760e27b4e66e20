import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveCreateOrg(bus: Bus, service: AdminService): void {
  bus.serve(identity.createOrg, ({ name, slug }) => service.createOrg(name, slug));
}
