import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { KeysService } from '../domain/keys-service.ts';

export function serveListKeys(bus: Bus, service: KeysService): void {
  bus.serve(identity.listKeys, ({ projectId, ...query }) => service.list(projectId, query));
}
