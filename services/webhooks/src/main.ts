/** The webhooks service as its own process: NATS in, internal events from JetStream, deliveries out, its `webhooks` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { WEBHOOKS_SCHEMA } from './start.ts';
import { webhooksStartup } from './startup.ts';

const logger = createLogger('webhooks');

const schema = z.object({
  ...serviceProcessSettings,
  ...webhooksStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'webhooks',
    schema: WEBHOOKS_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => webhooksStartup.start({ db, bus, events, logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
