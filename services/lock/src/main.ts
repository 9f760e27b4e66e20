/** The lock service as its own process: NATS in, its `locks` schema behind, commit.created from JetStream. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { cursorSecretSetting } from '@lode/db';
import { outboxOptions } from '@lode/outbox';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { LOCK_SCHEMA, startLockService } from './start.ts';
import { lockSettings } from './config.ts';

const logger = createLogger('lock');

const schema = z.object({
  ...serviceProcessSettings,
  ...lockSettings,
  ...cursorSecretSetting,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'lock',
    schema: LOCK_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) =>
      startLockService({
        db,
        bus,
        events,
        logger,
        cursorSecret: config.LODE_CURSOR_SECRET,
        fencePurgeIntervalMs: config.LODE_FENCE_PURGE_INTERVAL_MS,
        outbox: outboxOptions(config),
      }),
  });
}

main().catch(exitOnStartupFailure(logger));
