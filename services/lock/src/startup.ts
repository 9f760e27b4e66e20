import type { z } from 'zod';
import { cursorSecretSetting } from '@lode/db';
import { outboxOptions } from '@lode/outbox';
import { lockSettings } from './config.ts';
import { startLockService, type LockDeps } from './start.ts';

const settings = { ...lockSettings, ...cursorSecretSetting };

/**
 * The lock service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently.
 */
export const lockStartup = {
  settings,
  start: (runtime: Pick<LockDeps, 'db' | 'bus' | 'events' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startLockService({
      ...runtime,
      cursorSecret: config.LODE_CURSOR_SECRET,
      fencePurgeIntervalMs: config.LODE_FENCE_PURGE_INTERVAL_MS,
      outbox: outboxOptions(config),
    }),
};
