/** The lock service as its own process: NATS in, its `locks` schema behind, commit.created from JetStream. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { LOCK_SCHEMA } from './start.ts';
import { lockStartup } from './startup.ts';

const logger = createLogger('lock');

const schema = z.object({
  ...serviceProcessSettings,
  ...lockStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'lock',
    schema: LOCK_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => lockStartup.start({ db, bus, events, logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
