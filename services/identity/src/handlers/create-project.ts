import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveCreateProject(bus: Bus, service: AdminService): void {
  bus.serve(identity.createProject, ({ orgId, ...project }) => service.createProject(orgId, project));
}
