import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveListMembers(bus: Bus, service: AdminService): void {
  bus.serve(identity.listMembers, ({ orgId, ...query }) => service.listMembers(orgId, query));
}
