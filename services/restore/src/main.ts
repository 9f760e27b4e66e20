/** The restore service as its own process: NATS in, its `restore` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { RESTORE_SCHEMA, startRestoreService } from './start.ts';
import { restoreSettings } from './config.ts';

const logger = createLogger('restore');

const schema = z.object({
  ...serviceProcessSettings,
  ...restoreSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'restore',
    schema: RESTORE_SCHEMA,
    config,
    logger,
    start: ({ db, bus }) => startRestoreService({ db, bus, logger, idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS }),
  });
}

main().catch(exitOnStartupFailure(logger));
