/** The sync service as its own process: NATS in, commit.created from JetStream, its `sync` schema behind. */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { Database } from '@lode/db';
import { busSettings, connectService } from '@lode/bus';
import { exitOnStartupFailure, onShutdown, opsSettings, startOpsServer } from '@lode/runtime';
import { startSyncService, SYNC_SCHEMA } from './start.ts';
import { syncSettings } from './config.ts';

const logger = createLogger('sync');

const schema = z.object({
  DATABASE_URL: env.url(),
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...opsSettings,
  ...syncSettings,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const db = new Database({ connectionString: config.DATABASE_URL, schema: SYNC_SCHEMA });
  const { nc, bus, events, close } = await connectService(config, 'sync', logger);
  const sync = await startSyncService({ db, bus, events, logger, catchUpMs: config.LODE_SYNC_CATCH_UP_MS });
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger, ready: () => Promise.all([db.ping(), nc.flush()]) });
  logger.info('sync service ready');
  onShutdown(logger, [
    ['projection', () => sync.stop()],
    ['nats', close],
    ['database', () => db.close()],
  ], { ops });
}

main().catch(exitOnStartupFailure(logger));
