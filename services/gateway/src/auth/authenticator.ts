import { errors } from '@lode/errors';
import { identity } from '@lode/contracts';
import { bearerToken, looksLikeApiKey } from './api-key.ts';
import type { KeyDirectory } from './key-directory.ts';

interface CacheEntry {
  /** The lookup, shared by every request for the key until it expires. */
  lookup: Promise<identity.KeyIdentity | undefined>;
  /** Whether the lookup answered, and its identity: forgetKey finds a key's entries by it. */
  settled: boolean;
  identity?: identity.KeyIdentity;
  expiresAt: number;
}

export interface AuthenticatorOptions {
  /** How long a lookup is trusted; a revocation made elsewhere takes effect within this time. */
  ttlMs: number;
  maxEntries?: number;
}

/**
 * Turns `Authorization: Bearer <key>` plus `X-Device-Id` into the key's identity. Lookups are cached
 * for ttlMs by the key itself: a hit is one map lookup, with no bus call and no SHA-256 (the hash only
 * finds the key in the identity service). Requests that miss together share one lookup, so an expiry
 * under load is one call, not one per request in flight. Unknown keys are cached too, so a flood of
 * bad keys cannot become a flood of calls.
 */
export class Authenticator {
  readonly #directory: KeyDirectory;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #cache = new Map<string, CacheEntry>();

  constructor(directory: KeyDirectory, options: AuthenticatorOptions) {
    this.#directory = directory;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  async authenticate(authorization: string | undefined, deviceId: string | undefined): Promise<identity.KeyIdentity> {
    const key = bearerToken(authorization);
    if (!key) throw errors.missingKey();
    if (!looksLikeApiKey(key)) throw errors.invalidKey();
    if (deviceId !== undefined && !identity.DEVICE_ID_PATTERN.test(deviceId)) {
      throw errors.validation('X-Device-Id must be 1 to 200 printable ASCII characters');
    }

    const found = await this.#lookup(key);
    if (!found) throw errors.invalidKey();
    if (found.revoked) throw errors.keyRevoked();
    if (!found.role) throw errors.forbidden("The key's user is no longer a member of the project's organization");

    if (found.deviceId !== null) {
      if (deviceId === undefined) throw errors.deviceRequired();
      if (deviceId !== found.deviceId) throw errors.deviceMismatch();
    } else if (deviceId !== undefined) {
      const winner = await this.#directory.bindDevice(found.keyId, deviceId);
      found.deviceId = winner;
      if (winner !== deviceId) throw errors.deviceMismatch();
    }
    return found;
  }

  /**
   * Forgets a key at once in this process (revocation, device reset by the admin API). Lookups still
   * running are dropped too: they may have read the key before the change.
   */
  forgetKey(keyId: string): void {
    for (const [key, entry] of this.#cache) if (!entry.settled || entry.identity?.keyId === keyId) this.#cache.delete(key);
  }

  #lookup(key: string): Promise<identity.KeyIdentity | undefined> {
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && cached.expiresAt > now) return cached.lookup;
    const entry: CacheEntry = { lookup: this.#directory.resolve(identity.apiKeyHash(key)), settled: false, expiresAt: now + this.#ttlMs };
    if (this.#cache.size >= this.#maxEntries) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, entry);
    entry.lookup.then(
      (found) => {
        entry.settled = true;
        entry.identity = found;
      },
      // A failed lookup is not cached: the next request asks again.
      () => {
        if (this.#cache.get(key) === entry) this.#cache.delete(key);
      },
    );
    return entry.lookup;
  }
}
