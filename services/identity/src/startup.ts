import type { z } from 'zod';
import { outboxOptions } from '@lode/outbox';
import { identitySettings } from './config.ts';
import { startIdentityService, type IdentityDeps } from './start.ts';

const settings = identitySettings;

/**
 * The identity service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently.
 */
export const identityStartup = {
  settings,
  start: (runtime: Pick<IdentityDeps, 'db' | 'bus' | 'events' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startIdentityService({
      ...runtime,
      cursorSecret: config.LODE_CURSOR_SECRET,
      outbox: outboxOptions(config),
      maxWriteLimit: { perSecond: config.LODE_WRITE_RATE_PER_SECOND, burst: config.LODE_WRITE_RATE_BURST },
      sessionMaxAgeMs: config.LODE_SESSION_MAX_AGE_MS,
      projectDeleteWindowMs: config.LODE_PROJECT_DELETE_WINDOW_MS,
      projectPurgeIntervalMs: config.LODE_PROJECT_PURGE_INTERVAL_MS,
    }),
};
