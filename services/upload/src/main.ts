/** The upload service as its own process: NATS in, its `files` schema and blob storage behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { createStorage } from '@lode/storage';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { UPLOAD_SCHEMA } from './start.ts';
import { uploadStartup } from './startup.ts';

const logger = createLogger('upload');

const schema = z.object({
  ...serviceProcessSettings,
  ...uploadStartup.settings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'upload',
    schema: UPLOAD_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) => uploadStartup.start({ db, bus, events, storage: createStorage(config, { publicUrl: 'http://localhost:8080' }), logger }, config),
  });
}

main().catch(exitOnStartupFailure(logger));
