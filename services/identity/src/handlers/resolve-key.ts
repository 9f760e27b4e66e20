import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { KeysService } from '../domain/keys-service.ts';

export function serveResolveKey(bus: Bus, service: KeysService): void {
  bus.serve(identity.resolveKey, async ({ keyHash }) => ({ identity: await service.resolve(keyHash) }));
}
