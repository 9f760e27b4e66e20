/** The identity service as its own process: NATS in, its `identity` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { IDENTITY_SCHEMA } from './start.ts';
import { identityStartup } from './startup.ts';

const logger = createLogger('identity');

const schema = z.object({
  ...serviceProcessSettings,
  ...identityStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'identity',
    schema: IDENTITY_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => identityStartup.start({ db, bus, events, logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
