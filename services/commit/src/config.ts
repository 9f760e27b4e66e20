import { env } from '@lode/config';

/** Settings of the commit service, in its own process or embedded. */
export const commitSettings = {
  /**
   * Whether this replica publishes the outbox. Any number may (one publishes at a time); turn it off
   * to keep publishing on dedicated replicas.
   */
  LODE_OUTBOX_RELAY: env.flag(true),
  /** How often the outbox relay looks for unpublished events (a local commit wakes it at once). */
  LODE_OUTBOX_POLL_MS: env.int(1000, 10),
  /** How long published outbox rows are kept before they are deleted. */
  LODE_OUTBOX_RETENTION_MS: env.int(86_400_000),
  /**
   * Longest a commit may hold its lock fence (docs/architecture.md). A commit still running when it
   * would lapse is abandoned rather than committed, and a fence left by a crash lapses after it.
   */
  LODE_LOCK_FENCE_TTL_MS: env.int(60_000, 5000),
  /** How long an X-Idempotency-Key's outcome is replayed (docs/api.md). */
  LODE_IDEMPOTENCY_TTL_MS: env.int(86_400_000, 60_000),
};
