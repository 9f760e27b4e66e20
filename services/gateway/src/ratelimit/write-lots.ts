import type { RateLimit, TakeResult } from './limiter.ts';

/** A lot holds at most this many writes… */
const MAX_LOT = 32;
/** …and at most this share of the burst. */
const BURST_SHARE = 64;
/** A lot's tokens not spent this long after it was last topped up go back to the shared bucket. */
export const LOT_LIFETIME_MS = 1_000;

/**
 * How many of a project's writes a gateway takes from the shared bucket at once: at most 1/64 of the
 * burst and 32. Below 2 (a burst under 128) none are taken ahead, and every write is one step in Redis.
 */
export function lotSize(limit: RateLimit): number {
  return Math.min(MAX_LOT, Math.floor(limit.burst / BURST_SHARE));
}

/** One step of a shared bucket: the tokens taken and the milliseconds until one is back, or undefined when the store is unreachable. */
export type BucketStep = (bucket: string, limit: RateLimit, count: number) => Promise<readonly [taken: number, retryMs: number] | undefined>;

interface Lot {
  tokens: number;
  limit: RateLimit;
  /** When tokens last came in. */
  filledAt: number;
  /** The top-up in flight, which every write finding the lot empty waits for. */
  filling: ReturnType<BucketStep> | undefined;
}

/**
 * Writes counted from tokens this gateway took from each project's shared bucket ahead of them, so a
 * write does not wait for the shared store: a lot is topped up in the background once half spent,
 * and a write waits only when its project's lot is empty (its first write, or a burst outrunning the
 * top-ups), as it would for a step of its own.
 *
 * The limit stays the shared bucket's: every write let through spent a token taken from it, and a
 * write is refused only when the bucket itself had no token left. What the lots change is when a
 * token leaves the bucket, and that is bounded: each gateway holds at most one lot per project
 * (lotSize: at most 1/64 of the burst) for at most LOT_LIFETIME_MS after its last top-up, then gives
 * the rest back. So a project may see its burst at most one lot per gateway larger (tokens a gateway
 * held while the bucket refilled to full), and refusals at most one lot per other gateway early (tokens
 * another gateway holds); never a steady rate above its own.
 */
export class WriteLots {
  readonly #lots = new Map<string, Lot>();
  readonly #step: BucketStep;
  readonly #lifetimeMs: number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(step: BucketStep, lifetimeMs = LOT_LIFETIME_MS) {
    this.#step = step;
    this.#lifetimeMs = lifetimeMs;
    this.#sweeper = setInterval(() => this.#giveBackExpired(), this.#lifetimeMs);
    this.#sweeper.unref();
  }

  /** One write of `size`-token lots, or undefined when the shared store is unreachable (the caller decides then). */
  async take(bucket: string, limit: RateLimit, size: number): Promise<TakeResult | undefined> {
    for (;;) {
      const lot = this.#lotOf(bucket, limit);
      if (lot.tokens >= 1) {
        lot.tokens -= 1;
        if (lot.tokens < size / 2) void this.#topUp(bucket, lot, size);
        return { allowed: true, retryAfterSeconds: 0 };
      }
      const answer = await this.#topUp(bucket, lot, size);
      if (!answer) return undefined;
      // Only an empty bucket refuses: tokens this top-up brought that other writes spent first send this one round again.
      if (answer[0] === 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(answer[1] / 1000)) };
    }
  }

  /** Gives every lot's tokens back, for a gateway that stops. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#lots].map(([bucket, lot]) => this.#giveBack(bucket, lot)));
  }

  /** The project's lot, a new empty one when it had none, its limit changed or its tokens outlived LOT_LIFETIME_MS. */
  #lotOf(bucket: string, limit: RateLimit): Lot {
    const lot = this.#lots.get(bucket);
    if (lot && lot.limit.perSecond === limit.perSecond && lot.limit.burst === limit.burst && !this.#expired(lot)) return lot;
    if (lot) void this.#giveBack(bucket, lot);
    const fresh: Lot = { tokens: 0, limit, filledAt: Date.now(), filling: undefined };
    this.#lots.set(bucket, fresh);
    return fresh;
  }

  #topUp(bucket: string, lot: Lot, size: number): ReturnType<BucketStep> {
    lot.filling ??= this.#step(bucket, lot.limit, size - lot.tokens).then((answer) => {
      lot.filling = undefined;
      if (!answer || answer[0] === 0) return answer;
      // A lot given back while its top-up was out: what the top-up took goes back too.
      if (this.#lots.get(bucket) !== lot) void this.#step(bucket, lot.limit, -answer[0]);
      else {
        lot.tokens += answer[0];
        lot.filledAt = Date.now();
      }
      return answer;
    });
    return lot.filling;
  }

  #expired(lot: Lot): boolean {
    return lot.filling === undefined && Date.now() - lot.filledAt >= this.#lifetimeMs;
  }

  #giveBackExpired(): void {
    for (const [bucket, lot] of this.#lots) if (this.#expired(lot)) void this.#giveBack(bucket, lot);
  }

  /** Forgets the lot and returns its tokens to the shared bucket; tokens an unreachable store does not take back are lost, which only tightens the limit. */
  async #giveBack(bucket: string, lot: Lot): Promise<void> {
    if (this.#lots.get(bucket) === lot) this.#lots.delete(bucket);
    const tokens = lot.tokens;
    lot.tokens = 0;
    if (tokens > 0) await this.#step(bucket, lot.limit, -tokens);
  }
}
