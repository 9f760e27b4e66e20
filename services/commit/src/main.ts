/** The commit service as its own process: NATS in, its `commits` schema behind, events to JetStream. */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { cursorSecretSetting, Database } from '@lode/db';
import { busSettings, connectService } from '@lode/bus';
import { createStorage, storageSettings } from '@lode/storage';
import { exitOnStartupFailure, onShutdown, opsSettings, startOpsServer } from '@lode/runtime';
import { COMMIT_SCHEMA, startCommitService } from './start.ts';
import { commitSettings } from './config.ts';

const logger = createLogger('commit');

const schema = z.object({
  DATABASE_URL: env.url(),
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...opsSettings,
  ...storageSettings,
  ...commitSettings,
  ...cursorSecretSetting,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const db = new Database({ connectionString: config.DATABASE_URL, schema: COMMIT_SCHEMA });
  const { nc, bus, events, close } = await connectService(config, 'commit', logger);
  const commit = await startCommitService({
    db,
    bus,
    events,
    storage: createStorage(config, { publicUrl: 'http://localhost:8080' }),
    logger,
    cursorSecret: config.LODE_CURSOR_SECRET,
    outbox: { relay: config.LODE_OUTBOX_RELAY, pollMs: config.LODE_OUTBOX_POLL_MS, retentionMs: config.LODE_OUTBOX_RETENTION_MS },
    idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS,
    fenceTtlMs: config.LODE_LOCK_FENCE_TTL_MS,
  });
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger, ready: () => Promise.all([db.ping(), nc.flush()]) });
  logger.info('commit service ready');
  onShutdown(logger, [
    ['relay', () => commit.stop()],
    ['nats', close],
    ['database', () => db.close()],
  ], { ops });
}

main().catch(exitOnStartupFailure(logger));
