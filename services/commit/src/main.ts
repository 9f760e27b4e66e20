/** The commit service as its own process: NATS in, its `commits` schema behind, events to JetStream. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { cursorSecretSetting } from '@lode/db';
import { outboxOptions } from '@lode/outbox';
import { createStorage, storageSettings } from '@lode/storage';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { COMMIT_SCHEMA, startCommitService } from './start.ts';
import { commitSettings } from './config.ts';

const logger = createLogger('commit');

const schema = z.object({
  ...serviceProcessSettings,
  ...storageSettings,
  ...commitSettings,
  ...cursorSecretSetting,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'commit',
    schema: COMMIT_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) =>
      startCommitService({
        db,
        bus,
        events,
        storage: createStorage(config, { publicUrl: 'http://localhost:8080' }),
        logger,
        cursorSecret: config.LODE_CURSOR_SECRET,
        outbox: outboxOptions(config),
        idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS,
        fenceTtlMs: config.LODE_LOCK_FENCE_TTL_MS,
        draftTtlMs: config.LODE_DRAFT_TTL_MS,
      }),
  });
}

main().catch(exitOnStartupFailure(logger));
