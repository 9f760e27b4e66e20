/** The webhooks service as its own process: NATS in, internal events from JetStream, deliveries out, its `webhooks` schema behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { startWebhooksService, WEBHOOKS_SCHEMA } from './start.ts';
import { webhooksConfig, webhooksSettings } from './config.ts';

const logger = createLogger('webhooks');

const schema = z.object({
  ...serviceProcessSettings,
  ...webhooksSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'webhooks',
    schema: WEBHOOKS_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => startWebhooksService({ db, bus, events, logger, config: webhooksConfig(config) }),
  });
}

main().catch(exitOnStartupFailure(logger));
