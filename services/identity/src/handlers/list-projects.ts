import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveListProjects(bus: Bus, service: AdminService): void {
  bus.serve(identity.listProjects, ({ orgId, ...query }) => service.listProjects(orgId, query));
}
