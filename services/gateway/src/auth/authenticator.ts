import { errors } from '@lode/errors';
import { bearerToken, hashApiKey, looksLikeApiKey } from './api-key.ts';
import type { KeyIdentityRow, KeysRepository } from '../identity/keys-repo.ts';

interface CacheEntry {
  row: KeyIdentityRow | undefined;
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
 * for ttlMs (hits cost no database round trip); unknown keys are cached too, so a flood of bad keys
 * cannot become a flood of queries.
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

    const cacheKey = hashApiKey(key);
    const id = cacheKey.toString('base64');
    const row = await this.#lookup(id, cacheKey);
    if (!row) throw errors.invalidKey();
    if (row.revoked) throw errors.keyRevoked();
    if (!row.role) throw errors.forbidden("The key's user is no longer a member of the project's organization");

    if (row.device_id !== null) {
      if (deviceId !== row.device_id) throw errors.deviceMismatch();
    } else if (deviceId !== undefined) {
      const winner = await this.#repo.bindDevice(row.key_id, deviceId);
      row.device_id = winner;
      if (winner !== deviceId) throw errors.deviceMismatch();
    }
    return row;
  }

  /** Forgets a key at once in this process (revocation, device reset by the admin API). */
  forgetKey(keyId: string): void {
    for (const [id, entry] of this.#cache) if (entry.row?.key_id === keyId) this.#cache.delete(id);
  }

  async #lookup(id: string, keyHash: Buffer): Promise<KeyIdentityRow | undefined> {
    const now = Date.now();
    const cached = this.#cache.get(id);
    if (cached && cached.expiresAt > now) return cached.row;
    const row = await this.#repo.findIdentityByHash(keyHash);
    if (this.#cache.size >= this.#maxEntries) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(id, { row, expiresAt: now + this.#ttlMs });
    return row;
  }
}
