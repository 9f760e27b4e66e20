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
  /** How long a draft commit lives after it was created; expired drafts read as gone and are swept (docs/api.md). */
  LODE_DRAFT_TTL_MS: env.int(86_400_000, 1000),
};
