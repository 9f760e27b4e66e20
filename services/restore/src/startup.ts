import type { z } from 'zod';
import { restoreSettings } from './config.ts';
import { startRestoreService, type RestoreDeps } from './start.ts';

const settings = restoreSettings;

/**
 * The restore service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently.
 */
export const restoreStartup = {
  settings,
  start: (runtime: Pick<RestoreDeps, 'db' | 'bus' | 'events' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startRestoreService({ ...runtime, idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS }),
};
