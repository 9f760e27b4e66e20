import { env } from '@lode/config';
import { outboxSettings } from '@lode/outbox';

/** Settings of the commit service, in its own process or embedded. */
export const commitSettings = {
  ...outboxSettings,
  /**
   * Longest a commit may hold its lock fence (docs/architecture.md). A commit still running when it
   * would lapse is abandoned rather than committed, and a fence left by a crash lapses after it.
   */
  LODE_LOCK_FENCE_TTL_MS: env.int(60_000, 5000),
  /** How long an X-Idempotency-Key's outcome is replayed (docs/api.md). */
  LODE_IDEMPOTENCY_TTL_MS: env.int(86_400_000, 60_000),
};
