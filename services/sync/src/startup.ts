import type { z } from 'zod';
import { cursorSecretSetting } from '@lode/db';
import { syncSettings } from './config.ts';
import { startSyncService, type SyncDeps } from './start.ts';

const settings = { ...syncSettings, ...cursorSecretSetting };

/**
 * The sync service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently.
 */
export const syncStartup = {
  settings,
  start: (runtime: Pick<SyncDeps, 'db' | 'bus' | 'events' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startSyncService({ ...runtime, catchUpMs: config.LODE_SYNC_CATCH_UP_MS, cursorSecret: config.LODE_CURSOR_SECRET }),
};
