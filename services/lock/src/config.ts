import { env } from '@lode/config';
import { outboxSettings } from '@lode/outbox';

/** Settings of the lock service, in its own process or embedded. */
export const lockSettings = {
  ...outboxSettings,
  /**
   * How often expired commit fences are deleted. Expired fences are ignored anyway; this only keeps
   * the table small after commits that crashed before settling.
   */
  LODE_FENCE_PURGE_INTERVAL_MS: env.int(60_000, 1000),
};
