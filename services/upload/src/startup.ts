import type { z } from 'zod';
import { outboxOptions } from '@lode/outbox';
import { createStorage, storageSettings } from '@lode/storage';
import { uploadSettings } from './config.ts';
import { startUploadService, type UploadDeps } from './start.ts';

const settings = { ...storageSettings, ...uploadSettings };

/**
 * The upload service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently. Alone, it signs and checks objects in the storage its settings name.
 */
export const uploadStartup = {
  settings,
  start: (
    runtime: Pick<UploadDeps, 'db' | 'bus' | 'events' | 'logger'> & Partial<Pick<UploadDeps, 'storage'>>,
    config: z.output<z.ZodObject<typeof settings>>,
  ) =>
    startUploadService({
      ...runtime,
      storage: runtime.storage ?? createStorage(config),
      gc: { intervalMs: config.LODE_GC_INTERVAL_MS, graceMs: config.LODE_GC_GRACE_MS },
      retentionIntervalMs: config.LODE_RETENTION_INTERVAL_MS,
      cursorSecret: config.LODE_CURSOR_SECRET,
      usageFoldIntervalMs: config.LODE_USAGE_FOLD_INTERVAL_MS,
      outbox: outboxOptions(config),
    }),
};
