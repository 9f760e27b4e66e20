export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  /** When refused: seconds until one token is back (for Retry-After). */
  retryAfterSeconds: number;
}

/** Per-project token bucket for write requests. */
export interface WriteLimiter {
  take(projectId: string, limit: RateLimit): Promise<TakeResult>;
  close(): Promise<void>;
}
