import { env } from '@lode/config';

/** How long an X-Idempotency-Key's outcome is replayed (docs/api.md), as for commits. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

/** Settings of the restore service in its own process. */
export const restoreSettings = {
  /**
   * Keep it no longer than the commit service's (the same variable): a restore retried within it
   * relies on the commit service still replaying the restore's commit.
   */
  LODE_IDEMPOTENCY_TTL_MS: env.int(DEFAULT_IDEMPOTENCY_TTL_MS, 60_000),
};
