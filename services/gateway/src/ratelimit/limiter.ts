export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  /** When refused: seconds until one token is back (for Retry-After). */
  retryAfterSeconds: number;
}

/**
 * Token buckets by name: each project's write budget, and the budgets of failed authentications
 * per client address and per API key (auth/failure-throttle.ts), which name theirs apart.
 */
export interface WriteLimiter {
  take(bucket: string, limit: RateLimit): Promise<TakeResult>;
  /**
   * One write of a project: a take of the project's bucket, which a limiter shared by gateways may
   * count from tokens it took from that bucket ahead (redis-limiter.ts).
   */
  takeWrite(project: string, limit: RateLimit): Promise<TakeResult>;
  /** Gives back a token taken for something that turned out not to count (never above the burst). */
  refund(bucket: string, limit: RateLimit): Promise<void>;
  close(): Promise<void>;
}
