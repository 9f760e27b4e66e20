import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';
import { errors, isAppError, type ErrorCode } from '@lode/errors';
import { instruments } from '@lode/telemetry';
import type { RateLimit, WriteLimiter } from '../ratelimit/limiter.ts';

/** How many failed authentications are let through, in a window, before further attempts answer 429. */
export interface AuthFailureLimits {
  /** Per client address (an IPv6 /64), for each kind of credential apart. */
  perAddress: number;
  /** Per API key, from any address. */
  perKey: number;
  /** The time a spent budget takes to refill completely. */
  windowMs: number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: AuthFailureLimits = { perAddress: 20, perKey: 10, windowMs: 60_000 };

export type Credential = 'api-key' | 'admin-token' | 'sign-in-link';

interface Budget {
  credential: Credential;
  per: 'address' | 'key';
  bucket: string;
  limit: RateLimit;
}

/** The refusals that mean a credential was wrong; any other outcome of an attempt does not count. */
const FAILURES = new Set<ErrorCode>(['invalid_key', 'key_revoked', 'device_mismatch', 'forbidden', 'unauthorized']);

/**
 * Budgets of failed authentications, kept as token buckets in the write limiter's store (Redis,
 * shared by every gateway, or this process's memory in embedded mode), which fails open to counting
 * per gateway while Redis is away. A budget of N per window lets N failures through at once, then
 * one more each window/N.
 *
 * An attempt takes a token from each of its budgets before its credential is examined, so a spent
 * budget refuses the attempt with no lookup and attempts in flight together can never overrun it;
 * an attempt that does not end in a wrong credential (a success, a malformed device id, a bus that is
 * down) gives its tokens back, so only failures count.
 */
export class FailureThrottle {
  readonly #limiter: WriteLimiter;
  readonly #perAddress: RateLimit;
  readonly #perKey: RateLimit;

  constructor(limiter: WriteLimiter, limits: AuthFailureLimits) {
    this.#limiter = limiter;
    this.#perAddress = { burst: limits.perAddress, perSecond: (limits.perAddress * 1000) / limits.windowMs };
    this.#perKey = { burst: limits.perKey, perSecond: (limits.perKey * 1000) / limits.windowMs };
  }

  /**
   * An API key's budgets: its client address's and the key's own. There is no public id in a key
   * (`lode_` and 40 random characters), so the key's budget is named by a digest of the whole of it:
   * failures with one key never spend another's, and no store holds a key or its lookup hash.
   */
  apiKey(address: string, key: string): Budget[] {
    const digest = createHash('sha256').update(`failed-authentication:${key}`).digest('base64url').slice(0, 22);
    return [this.#address('api-key', address), { credential: 'api-key', per: 'key', bucket: `auth-failures:api-key:key:${digest}`, limit: this.#perKey }];
  }

  /** The admin token and sign-in links have one holder each: only their client address has a budget. */
  byAddress(credential: Exclude<Credential, 'api-key'>, address: string): Budget[] {
    return [this.#address(credential, address)];
  }

  /** Runs an attempt within its budgets: refused with 429 before `examine` when one of them is spent. */
  async attempt<T>(budgets: readonly Budget[], examine: () => Promise<T>): Promise<T> {
    const taken: Budget[] = [];
    for (const budget of budgets) {
      const { allowed, retryAfterSeconds } = await this.#limiter.take(budget.bucket, budget.limit);
      if (!allowed) {
        // A refused attempt is no failure of the credential: the other budgets get their token back.
        await this.#refund(taken);
        instruments().authThrottled.add(1, { credential: budget.credential, per: budget.per });
        throw errors.tooManyFailedAttempts(budget.per, retryAfterSeconds);
      }
      taken.push(budget);
    }
    try {
      const result = await examine();
      await this.#refund(taken);
      return result;
    } catch (error) {
      if (!isFailure(error)) await this.#refund(taken);
      throw error;
    }
  }

  /**
   * Runs an attempt the gateway expects to succeed outside its budgets (a key it knows to be good),
   * counting it against them only if it fails after all.
   */
  async unchecked<T>(budgets: readonly Budget[], examine: () => Promise<T>): Promise<T> {
    try {
      return await examine();
    } catch (error) {
      if (isFailure(error)) await Promise.all(budgets.map((budget) => this.#limiter.take(budget.bucket, budget.limit)));
      throw error;
    }
  }

  #address(credential: Credential, address: string): Budget {
    return { credential, per: 'address', bucket: `auth-failures:${credential}:address:${address}`, limit: this.#perAddress };
  }

  async #refund(budgets: readonly Budget[]): Promise<void> {
    await Promise.all(budgets.map((budget) => this.#limiter.refund(budget.bucket, budget.limit)));
  }
}

function isFailure(error: unknown): boolean {
  return isAppError(error) && FAILURES.has(error.code);
}

/**
 * The address whose budget a request spends: the peer Express reports, which is the client a
 * trusted proxy names in X-Forwarded-For ('trust proxy', LODE_TRUST_PROXY) and the connection's own
 * peer otherwise, so a client cannot choose its address by sending the header itself.
 */
export function clientAddress(req: Request): string {
  return addressBudgetName(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/**
 * IPv4 addresses count one by one (an IPv4-mapped IPv6 address as its IPv4 address); IPv6 ones by
 * their /64, the block a single subscriber is given: one by one, a client with a /64 would have
 * more addresses than any budget could matter against.
 */
export function addressBudgetName(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  const bare = ip.split('%')[0];
  if (!isIPv6(bare)) return ip;
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const [head, tail] = bare.split('::');
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const full = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
