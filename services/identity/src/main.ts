/** The identity service as its own process: NATS in, its `identity` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { outboxOptions } from '@lode/outbox';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { IDENTITY_SCHEMA, startIdentityService } from './start.ts';
import { identitySettings } from './config.ts';

const logger = createLogger('identity');

const schema = z.object({
  ...serviceProcessSettings,
  ...identitySettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'identity',
    schema: IDENTITY_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => startIdentityService({ db, bus, events, logger, cursorSecret: config.LODE_CURSOR_SECRET, outbox: outboxOptions(config) }),
  });
}

main().catch(exitOnStartupFailure(logger));
