/** The lock service as its own process: NATS in, its `locks` schema behind, commit.created from JetStream. */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { cursorSecretSetting, Database } from '@lode/db';
import { busSettings, connectService } from '@lode/bus';
import { exitOnStartupFailure, onShutdown, opsSettings, startOpsServer } from '@lode/runtime';
import { LOCK_SCHEMA, startLockService } from './start.ts';
import { lockSettings } from './config.ts';

const logger = createLogger('lock');

const schema = z.object({
  DATABASE_URL: env.url(),
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...opsSettings,
  ...lockSettings,
  ...cursorSecretSetting,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const db = new Database({ connectionString: config.DATABASE_URL, schema: LOCK_SCHEMA });
  const { nc, bus, events, close } = await connectService(config, 'lock', logger);
  const lock = await startLockService({
    db,
    bus,
    events,
    logger,
    cursorSecret: config.LODE_CURSOR_SECRET,
    fencePurgeIntervalMs: config.LODE_FENCE_PURGE_INTERVAL_MS,
  });
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger, ready: () => Promise.all([db.ping(), nc.flush()]) });
  logger.info('lock service ready');
  onShutdown(logger, [
    ['lock', () => lock.stop()],
    ['nats', close],
    ['database', () => db.close()],
  ], { ops });
}

main().catch(exitOnStartupFailure(logger));
