import { env } from '@lode/config';

/** Settings of the sync service, in its own process or embedded. */
export const syncSettings = {
  /**
   * How long a sync waits for the read model to apply the project's latest commit before answering
   * 503 sync_catching_up (read your writes, docs/api.md).
   */
  LODE_SYNC_CATCH_UP_MS: env.int(5000),
};
