import type { z } from 'zod';
import { cursorSecretSetting } from '@lode/db';
import { outboxOptions } from '@lode/outbox';
import { storageSettings } from '@lode/storage';
import { commitSettings } from './config.ts';
import { startCommitService, type CommitDeps } from './start.ts';

const settings = { ...storageSettings, ...commitSettings, ...cursorSecretSetting };

/**
 * The commit service's settings and how they start it, for whatever hosts it: its own process
 * (main.ts) or the system's registry (one process beside the others). Written once, so the two
 * cannot start it differently.
 */
export const commitStartup = {
  settings,
  start: (runtime: Pick<CommitDeps, 'db' | 'bus' | 'events' | 'storage' | 'logger'>, config: z.output<z.ZodObject<typeof settings>>) =>
    startCommitService({
      ...runtime,
      cursorSecret: config.LODE_CURSOR_SECRET,
      outbox: outboxOptions(config),
      idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS,
      fenceTtlMs: config.LODE_LOCK_FENCE_TTL_MS,
      draftTtlMs: config.LODE_DRAFT_TTL_MS,
    }),
};
