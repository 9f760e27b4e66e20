import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveListUsers(bus: Bus, service: AdminService): void {
  bus.serve(identity.listUsers, (query) => service.listUsers(query));
}
