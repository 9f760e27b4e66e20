import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveAddMember(bus: Bus, service: AdminService): void {
  bus.serve(identity.addMember, ({ orgId, userId, role }) => service.addMember(orgId, userId, role));
}
