import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { KeysService } from '../domain/keys-service.ts';

export function serveBindDevice(bus: Bus, service: KeysService): void {
  bus.serve(identity.bindDevice, async ({ keyId, deviceId }) => ({ deviceId: await service.bindDevice(keyId, deviceId) }));
}
