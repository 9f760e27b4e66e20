import { z } from 'zod';
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
  /** How long an X-Idempotency-Key's outcome is replayed (docs/api.md). */
  LODE_IDEMPOTENCY_TTL_MS: env.int(86_400_000, 60_000),
};

/** Signs pagination cursors; every replica must share it. The embedded mode keeps one in its data directory. */
export const cursorSecretSetting = {
  LODE_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters'),
};
