/** The sync service as its own process: NATS in, commit.created from JetStream, its `sync` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { SYNC_SCHEMA } from './start.ts';
import { syncStartup } from './startup.ts';

const logger = createLogger('sync');

const schema = z.object({
  ...serviceProcessSettings,
  ...syncStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'sync',
    schema: SYNC_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => syncStartup.start({ db, bus, events, logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
