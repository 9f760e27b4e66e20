import type { z } from 'zod';
import { cursorSecretSetting } from '@lode/db';
import { outboxOptions } from '@lode/outbox';
import { createStorage, storageSettings } from '@lode/storage';
import { commitSettings } from './config.ts';
import { startCommitService, type CommitDeps } from './start.ts';

const settings = { ...storageSettings, ...commitSettings, ...cursorSecretSetting };

/**
 * The commit service's settings and how they start it, for whatever hosts it: a process of its own
 * or one beside the others (the system's registry holds both). Written once, so the two cannot
 * start it differently. Alone, it signs download URLs with the storage its settings name.
 */
export const commitStartup = {
  settings,
  start: (
    runtime: Pick<CommitDeps, 'db' | 'bus' | 'events' | 'logger'> & Partial<Pick<CommitDeps, 'storage'>>,
    config: z.output<z.ZodObject<typeof settings>>,
  ) =>
    startCommitService({
      ...runtime,
      storage: runtime.storage ?? createStorage(config),
      cursorSecret: config.LODE_CURSOR_SECRET,
      outbox: outboxOptions(config),
      idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS,
      fenceTtlMs: config.LODE_LOCK_FENCE_TTL_MS,
      draftTtlMs: config.LODE_DRAFT_TTL_MS,
    }),
};
