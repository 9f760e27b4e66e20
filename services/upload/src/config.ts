import { env } from '@lode/config';
import { cursorSecretSetting } from '@lode/db';
import { outboxSettings } from '@lode/outbox';

/** Settings of the upload service, in its own process or embedded. */
export const uploadSettings = {
  /** plugin.published goes out through the upload service's outbox. */
  ...outboxSettings,
  /** Signs the plugin lists' cursors (the same secret in every replica). */
  ...cursorSecretSetting,
  /** How often the reservation collector runs. */
  LODE_GC_INTERVAL_MS: env.int(60_000, 1000),
  /** How long after its URL expired a never-confirmed upload is kept before it is collected. */
  LODE_GC_GRACE_MS: env.int(3_600_000),
  /** How often usage deltas are folded into the projects' totals and daily history (reads never wait for it). */
  LODE_USAGE_FOLD_INTERVAL_MS: env.int(10_000, 100),
  /** How often the periodic job applies each project's retention rules (it looks for due projects on the collector's interval). */
  LODE_RETENTION_INTERVAL_MS: env.int(86_400_000, 1000),
};
