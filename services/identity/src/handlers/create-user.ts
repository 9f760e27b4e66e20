import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { AdminService } from '../domain/admin-service.ts';

export function serveCreateUser(bus: Bus, service: AdminService): void {
  bus.serve(identity.createUser, ({ name, avatarUrl, email }) => service.createUser(name, avatarUrl, email));
}

export function serveSetUserEmail(bus: Bus, service: AdminService): void {
  bus.serve(identity.setUserEmail, ({ userId, email }) => service.setUserEmail(userId, email));
}
