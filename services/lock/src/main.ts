/** The lock service as its own process: NATS in, its `locks` schema behind, commit.created from JetStream. */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { cursorSecretSetting, Database } from '@lode/db';
import { busSettings, connectNats, JetStreamEvents, NatsBus } from '@lode/bus';
import { exitOnStartupFailure, onShutdown } from '@lode/runtime';
import { LOCK_SCHEMA, startLockService } from './start.ts';
import { lockSettings } from './config.ts';

const logger = createLogger('lock');

const schema = z.object({
  DATABASE_URL: env.url(),
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...lockSettings,
  ...cursorSecretSetting,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const db = new Database({ connectionString: config.DATABASE_URL, schema: LOCK_SCHEMA });
  const nc = await connectNats(config.NATS_URL, 'lode-lock');
  const bus = new NatsBus(nc, logger, { namespace: config.LODE_BUS_NAMESPACE, timeoutMs: config.LODE_BUS_TIMEOUT_MS });
  const events = await JetStreamEvents.connect(nc, logger, { namespace: config.LODE_BUS_NAMESPACE });
  const lock = await startLockService({
    db,
    bus,
    events,
    logger,
    cursorSecret: config.LODE_CURSOR_SECRET,
    fencePurgeIntervalMs: config.LODE_FENCE_PURGE_INTERVAL_MS,
  });
  logger.info('lock service ready');
  onShutdown(logger, [
    ['lock', () => lock.stop()],
    ['bus', () => bus.close()],
    ['events', () => events.close()],
    ['nats', () => nc.drain()],
    ['database', () => db.close()],
  ]);
}

main().catch(exitOnStartupFailure(logger));
