import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { KeysService } from '../domain/keys-service.ts';

export function serveRevokeKey(bus: Bus, service: KeysService): void {
  bus.serve(identity.revokeKey, ({ keyId }) => service.revoke(keyId));
}
