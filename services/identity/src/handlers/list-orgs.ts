import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveListOrgs(bus: Bus, service: AdminService): void {
  bus.serve(identity.listOrgs, (query) => service.listOrgs(query));
}
