/** The restore service as its own process: NATS in, its `restore` schema behind. */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { Database } from '@lode/db';
import { busSettings, connectService } from '@lode/bus';
import { exitOnStartupFailure, onShutdown, opsSettings, startOpsServer } from '@lode/runtime';
import { RESTORE_SCHEMA, startRestoreService } from './start.ts';
import { restoreSettings } from './config.ts';

const logger = createLogger('restore');

const schema = z.object({
  DATABASE_URL: env.url(),
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...opsSettings,
  ...restoreSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const db = new Database({ connectionString: config.DATABASE_URL, schema: RESTORE_SCHEMA });
  const { nc, bus, close } = await connectService(config, 'restore', logger);
  const restore = await startRestoreService({ db, bus, logger, idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS });
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger, ready: () => Promise.all([db.ping(), nc.flush()]) });
  logger.info('restore service ready');
  onShutdown(logger, [
    ['housekeeping', () => restore.stop()],
    ['nats', close],
    ['database', () => db.close()],
  ], { ops });
}

main().catch(exitOnStartupFailure(logger));
