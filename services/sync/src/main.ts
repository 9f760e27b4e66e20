/** The sync service as its own process: NATS in, commit.created from JetStream, its `sync` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { startSyncService, SYNC_SCHEMA } from './start.ts';
import { syncSettings } from './config.ts';

const logger = createLogger('sync');

const schema = z.object({
  ...serviceProcessSettings,
  ...syncSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'sync',
    schema: SYNC_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => startSyncService({ db, bus, events, logger, catchUpMs: config.LODE_SYNC_CATCH_UP_MS }),
  });
}

main().catch(exitOnStartupFailure(logger));
