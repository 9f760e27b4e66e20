import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { KeysService } from '../domain/keys-service.ts';

export function serveCreateKey(bus: Bus, service: KeysService): void {
  bus.serve(identity.createKey, ({ projectId, userId }) => service.create(projectId, userId));
}
