/**
 * Any service of the registry as its own process, the one SERVICE names: NATS in, its schema behind.
 * Start with `SERVICE=<name> node --import @lode/telemetry/register services/system/src/service-main.ts`
 * (the image's entry point does). It reads the settings every service process reads and the
 * service's own, each bad variable listed at once, and starts it as the registry defines it.
 */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import type { ServiceDefinition } from './definition.ts';
import { SERVICE_NAMES } from './names.ts';
import { serviceNamed } from './registry.ts';

const logger = createLogger(process.env.SERVICE ?? 'service');

async function main(): Promise<void> {
  const { SERVICE: name } = loadConfig(z.object({ SERVICE: z.enum(SERVICE_NAMES) }));
  const service: ServiceDefinition = serviceNamed(name);
  const config = loadConfig(z.object({ ...serviceProcessSettings, ...service.settings }));
  await runServiceProcess({
    service: name,
    schema: service.schema,
    config,
    logger,
    start: ({ db, bus, events }) => service.start({ db, bus, events, logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
