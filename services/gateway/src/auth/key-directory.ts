import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';

/** Where the authenticator finds a key it has not cached, and binds a key to its first device. */
export interface KeyDirectory {
  resolve(keyHash: string): Promise<identity.KeyIdentity | undefined>;
  /** The device the key is bound to afterwards: this one, or the one that bound it first. */
  bindDevice(keyId: string, deviceId: string): Promise<string | null>;
}

/** The identity service, over the bus. */
export function identityKeyDirectory(bus: Bus): KeyDirectory {
  return {
    resolve: async (keyHash) => (await bus.call(identity.resolveKey, { keyHash })).identity ?? undefined,
    bindDevice: async (keyId, deviceId) => (await bus.call(identity.bindDevice, { keyId, deviceId })).deviceId,
  };
}
