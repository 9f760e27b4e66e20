import { identity } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import { isAppError } from '@lode/errors';

/** Where the authenticator finds a key it has not cached, and binds a key to its first device. */
export interface KeyDirectory {
  resolve(keyHash: string): Promise<identity.KeyIdentity | undefined>;
  /** The device the key is bound to afterwards: this one, or the one that bound it first. */
  bindDevice(keyId: string, deviceId: string): Promise<string | null>;
}

/**
 * How long one try of a key call may take. Both calls are one indexed statement, and every request
 * of a key waits on its lookup (the authenticator shares it): a try left in the hands of an identity
 * replica that died would hold them all for the whole bus timeout. A try that outlives this is made
 * again, which both calls allow (a lookup reads; a binding keeps the first device however often it
 * is asked), so a dead replica costs seconds; a live one that is merely slow answers one of the tries.
 */
const KEY_CALL_TRY_MS = 3000;
/** Tries before the timeout reaches the request: together about the bus's default timeout. */
const KEY_CALL_TRIES = 10;

/** The identity service, over the bus. */
export function identityKeyDirectory(bus: Bus): KeyDirectory {
  return {
    resolve: async (keyHash) =>
      (await askAgainOnTimeout(() => bus.call(identity.resolveKey, { keyHash }, { timeoutMs: KEY_CALL_TRY_MS }))).identity ?? undefined,
    bindDevice: async (keyId, deviceId) =>
      (await askAgainOnTimeout(() => bus.call(identity.bindDevice, { keyId, deviceId }, { timeoutMs: KEY_CALL_TRY_MS }))).deviceId,
  };
}

async function askAgainOnTimeout<T>(call: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (error) {
      if (tries >= KEY_CALL_TRIES || !isAppError(error) || error.code !== 'timeout') throw error;
    }
  }
}
