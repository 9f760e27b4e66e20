import type { z } from 'zod';
import { outboxOptions } from '@lode/outbox';
import { storageSettings } from '@lode/storage';
import { uploadSettings } from './config.ts';
import { startUploadService, type UploadDeps } from './start.ts';

const settings = { ...storageSettings, ...uploadSettings };

/**
 * The upload service's settings and how they start it, for whatever hosts it: its own process
 * (main.ts) or the system's registry (one process beside the others). Written once, so the two
 * cannot start it differently.
 */
export const uploadStartup = {
  settings,
  start: (runtime: Pick<UploadDeps, 'db' | 'bus' | 'events' | 'storage' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startUploadService({
      ...runtime,
      gc: { intervalMs: config.LODE_GC_INTERVAL_MS, graceMs: config.LODE_GC_GRACE_MS },
      cursorSecret: config.LODE_CURSOR_SECRET,
      outbox: outboxOptions(config),
    }),
};
