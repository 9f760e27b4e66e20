/** The restore service as its own process: NATS in, its `restore` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { RESTORE_SCHEMA } from './start.ts';
import { restoreStartup } from './startup.ts';

const logger = createLogger('restore');

const schema = z.object({
  ...serviceProcessSettings,
  ...restoreStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'restore',
    schema: RESTORE_SCHEMA,
    config,
    logger,
    start: ({ db, bus }) => restoreStartup.start({ db, bus, logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
