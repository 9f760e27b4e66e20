/** The upload service as its own process: NATS in, its `files` schema and blob storage behind. */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { createStorage, storageSettings } from '@lode/storage';
import { outboxOptions } from '@lode/outbox';
import { exitOnStartupFailure, runServiceProcess, serviceProcessSettings } from '@lode/runtime';
import { startUploadService, UPLOAD_SCHEMA } from './start.ts';
import { uploadSettings } from './config.ts';

const logger = createLogger('upload');

const schema = z.object({
  ...serviceProcessSettings,
  ...storageSettings,
  ...uploadSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  await runServiceProcess({
    service: 'upload',
    schema: UPLOAD_SCHEMA,
    config,
    logger,
    start: ({ db, bus, events }) =>
      startUploadService({
        db,
        bus,
        events,
        storage: createStorage(config, { publicUrl: 'http://localhost:8080' }),
        logger,
        gc: { intervalMs: config.LODE_GC_INTERVAL_MS, graceMs: config.LODE_GC_GRACE_MS },
        cursorSecret: config.LODE_CURSOR_SECRET,
        outbox: outboxOptions(config),
      }),
  });
}

main().catch(exitOnStartupFailure(logger));
