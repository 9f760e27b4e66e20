/** The commit service as its own process: NATS in, its `commits` schema behind, events to JetStream. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { createStorage } from '@lode/storage';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { COMMIT_SCHEMA } from './start.ts';
import { commitStartup } from './startup.ts';

const logger = createLogger('commit');

const schema = z.object({
  ...serviceProcessSettings,
  ...commitStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'commit',
    schema: COMMIT_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => commitStartup.start({ db, bus, events, storage: createStorage(config, { publicUrl: 'http://localhost:8080' }), logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
