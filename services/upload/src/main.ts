/** The upload service as its own process: NATS in, its `files` schema and blob storage behind. */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { Database } from '@lode/db';
import { busSettings, connectService } from '@lode/bus';
import { createStorage, storageSettings } from '@lode/storage';
import { exitOnStartupFailure, onShutdown, opsSettings, startOpsServer } from '@lode/runtime';
import { startUploadService, UPLOAD_SCHEMA } from './start.ts';
import { uploadSettings } from './config.ts';

const logger = createLogger('upload');

const schema = z.object({
  DATABASE_URL: env.url(),
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...opsSettings,
  ...storageSettings,
  ...uploadSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const db = new Database({ connectionString: config.DATABASE_URL, schema: UPLOAD_SCHEMA });
  const { nc, bus, close } = await connectService(config, 'upload', logger);
  const storage = createStorage(config, { publicUrl: 'http://localhost:8080' });
  const upload = await startUploadService({
    db,
    bus,
    storage,
    logger,
    gc: { intervalMs: config.LODE_GC_INTERVAL_MS, graceMs: config.LODE_GC_GRACE_MS },
  });
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger, ready: () => Promise.all([db.ping(), nc.flush()]) });
  logger.info('upload service ready');
  onShutdown(logger, [
    ['collector', () => upload.stop()],
    ['nats', close],
    ['database', () => db.close()],
  ], { ops });
}

main().catch(exitOnStartupFailure(logger));
