import { errors } from '@lode/errors';
import { bearerToken, hashApiKey, looksLikeApiKey } from './api-key.ts';
import type { KeyIdentityRow, KeysRepository } from '../identity/keys-repo.ts';

interface CacheEntry {
  /** The lookup, shared by every request for the key until it expires. */
  lookup: Promise<KeyIdentityRow | undefined>;
  /** Whether the lookup answered, and its row: forgetKey finds a key's entries by it. */
  settled: boolean;
  row?: KeyIdentityRow;
  expiresAt: number;
}

export interface AuthenticatorOptions {
  /** How long a lookup is trusted; a revocation made elsewhere takes effect within this time. */
  ttlMs: number;
  maxEntries?: number;
}

const DEVICE_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Turns `Authorization: Bearer <key>` plus `X-Device-Id` into the key's identity. Lookups are cached
 * for ttlMs by the key itself: a hit is one map lookup, with no database round trip and no SHA-256
 * (the hash only finds the key in the database). Requests that miss together share one query, so an
 * expiry under load is one query, not one per request in flight. Unknown keys are cached too, so a
 * flood of bad keys cannot become a flood of queries.
 */
export class Authenticator {
  readonly #repo: KeysRepository;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #cache = new Map<string, CacheEntry>();

  constructor(repo: KeysRepository, options: AuthenticatorOptions) {
    this.#repo = repo;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  async authenticate(authorization: string | undefined, deviceId: string | undefined): Promise<KeyIdentityRow> {
    const key = bearerToken(authorization);
    if (!key) throw errors.missingKey();
    if (!looksLikeApiKey(key)) throw errors.invalidKey();
    if (deviceId !== undefined && !DEVICE_ID.test(deviceId)) {
      throw errors.validation('X-Device-Id must be 1 to 200 printable ASCII characters');
    }

    const row = await this.#lookup(key);
    if (!row) throw errors.invalidKey();
    if (row.revoked) throw errors.keyRevoked();
    if (!row.role) throw errors.forbidden("The key's user is no longer a member of the project's organization");

    if (row.device_id !== null) {
      if (deviceId === undefined) throw errors.deviceRequired();
      if (deviceId !== row.device_id) throw errors.deviceMismatch();
    } else if (deviceId !== undefined) {
      const winner = await this.#repo.bindDevice(row.key_id, deviceId);
      row.device_id = winner;
      if (winner !== deviceId) throw errors.deviceMismatch();
    }
    return row;
  }

  /**
   * Forgets a key at once in this process (revocation, device reset by the admin API). Lookups still
   * running are dropped too: they may have read the key before the change.
   */
  forgetKey(keyId: string): void {
    for (const [key, entry] of this.#cache) if (!entry.settled || entry.row?.key_id === keyId) this.#cache.delete(key);
  }

  #lookup(key: string): Promise<KeyIdentityRow | undefined> {
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && cached.expiresAt > now) return cached.lookup;
    const entry: CacheEntry = { lookup: this.#repo.findIdentityByHash(hashApiKey(key)), settled: false, expiresAt: now + this.#ttlMs };
    if (this.#cache.size >= this.#maxEntries) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, entry);
    entry.lookup.then(
      (row) => {
        entry.settled = true;
        entry.row = row;
      },
      // A failed lookup is not cached: the next request asks again.
      () => {
        if (this.#cache.get(key) === entry) this.#cache.delete(key);
      },
    );
    return entry.lookup;
  }
}
