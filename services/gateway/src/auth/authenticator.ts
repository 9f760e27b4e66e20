import { errors } from '@lode/errors';
import { identity } from '@lode/contracts';
import { bearerToken, looksLikeApiKey } from './api-key.ts';
import type { FailureThrottle } from './failure-throttle.ts';
import { refuseDeletedProject } from './identity.ts';
import type { KeyDirectory } from './key-directory.ts';

interface CacheEntry {
  /** The lookup, shared by every request for the key until it expires. */
  lookup: Promise<identity.KeyIdentity | undefined>;
  /** Whether the lookup answered, and its identity: forgetKey finds a key's entries by it. */
  settled: boolean;
  identity?: identity.KeyIdentity;
  /** While a lookup runs again after expiry: what the one before it found, for #vouchesFor. */
  previous?: identity.KeyIdentity;
  expiresAt: number;
}

export interface AuthenticatorOptions {
  /** How long a lookup is trusted; a revocation made elsewhere takes effect within this time. */
  ttlMs: number;
  maxEntries?: number;
  /** Budgets of failed attempts per client address and per key; none unless given. */
  throttle?: FailureThrottle;
}

/**
 * Turns `Authorization: Bearer <key>` plus `X-Device-Id` into the key's identity. Lookups are cached
 * for ttlMs by the key itself: a hit is one map lookup, with no bus call and no SHA-256 (the hash only
 * finds the key in the identity service). Requests that miss together share one lookup, so an expiry
 * under load is one call, not one per request in flight. Unknown keys are cached too, so a flood of
 * bad keys cannot become a flood of calls.
 *
 * With a throttle, a request's attempt spends the budgets of failures of its client address and of
 * its key, and is refused with 429 before any lookup once one is spent; except that a key this
 * gateway last found good, with the request's device, is never held back by them: its attempt
 * would succeed, and others' failures must not lock out a correct key (an office behind one address
 * where one script keeps sending a revoked key). Such a key is still looked up as usual, so a
 * revocation made elsewhere is seen within ttlMs, and counts against the budgets if it fails after
 * all. A guess cannot be let through this way: only a key that authenticated is known good.
 */
export class Authenticator {
  readonly #directory: KeyDirectory;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #throttle: FailureThrottle | undefined;

  constructor(directory: KeyDirectory, options: AuthenticatorOptions) {
    this.#directory = directory;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#throttle = options.throttle;
  }

  /**
   * `clientAddress`: the request's (failure-throttle.ts, clientAddress), whose budget the attempt
   * spends; none for a check of a caller already authenticated (a live feed's recheck), which is no
   * new attempt. A request with no bearer token makes no attempt either.
   */
  async authenticate(authorization: string | undefined, deviceId: string | undefined, clientAddress?: string): Promise<identity.KeyIdentity> {
    const key = bearerToken(authorization);
    if (!key) throw errors.missingKey();
    if (clientAddress === undefined || !this.#throttle) return this.#authenticate(key, deviceId);
    const budgets = this.#throttle.apiKey(clientAddress, key);
    const examine = () => this.#authenticate(key, deviceId);
    return this.#vouchesFor(key, deviceId) ? this.#throttle.unchecked(budgets, examine) : this.#throttle.attempt(budgets, examine);
  }

  async #authenticate(key: string, deviceId: string | undefined): Promise<identity.KeyIdentity> {
    if (!looksLikeApiKey(key)) throw errors.invalidKey();
    if (deviceId !== undefined && !identity.DEVICE_ID_PATTERN.test(deviceId)) {
      throw errors.validation('X-Device-Id must be 1 to 200 printable ASCII characters');
    }

    const found = await this.#lookup(key);
    if (!found) throw errors.invalidKey();
    if (found.revoked) throw errors.keyRevoked();
    refuseDeletedProject(found);
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
    this.#forget((found) => found.keyId === keyId);
  }

  /**
   * Forgets at once, in this process, every key of a project whose keys just stopped working (the
   * project deleted), and lookups still running, as forgetKey does.
   */
  forgetProject(projectId: string): void {
    this.#forget((found) => found.projectId === projectId);
  }

  #forget(matches: (found: identity.KeyIdentity) => boolean): void {
    for (const [key, entry] of this.#cache) if (!entry.settled || (entry.identity !== undefined && matches(entry.identity))) this.#cache.delete(key);
  }

  /**
   * Whether the key's last lookup here found it good for this device: live, its project too, its user still a member,
   * and unbound or bound to this device. Expired entries stay in the cache until pushed out of it, so
   * this outlives ttlMs.
   */
  #vouchesFor(key: string, deviceId: string | undefined): boolean {
    const entry = this.#cache.get(key);
    const known = entry?.settled ? entry.identity : entry?.previous;
    return (
      known !== undefined &&
      !known.revoked &&
      known.projectPurgeAfter === null &&
      known.role !== null &&
      (known.deviceId === null || known.deviceId === deviceId)
    );
  }

  #lookup(key: string): Promise<identity.KeyIdentity | undefined> {
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && cached.expiresAt > now) return cached.lookup;
    const previous = cached?.settled ? cached.identity : cached?.previous;
    const entry: CacheEntry = { lookup: this.#directory.resolve(identity.apiKeyHash(key)), settled: false, previous, expiresAt: now + this.#ttlMs };
    if (this.#cache.size >= this.#maxEntries) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, entry);
    entry.lookup.then(
      (found) => {
        entry.settled = true;
        entry.identity = found;
      },
      // A failed lookup is not cached: the next request asks again. The expired entry it replaced
      // goes back, so what that one knew still vouches for the key.
      () => {
        if (this.#cache.get(key) !== entry) return;
        if (cached) this.#cache.set(key, cached);
        else this.#cache.delete(key);
      },
    );
    return entry.lookup;
  }
}
