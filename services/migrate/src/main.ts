/**
 * The migration job (`SERVICE=migrate`): brings every schema up to date and exits 0, so a rollout can
 * wait for it before starting new replicas. Services still migrate their own schema at start (it is
 * idempotent); the job only makes the order explicit and surfaces a failing migration once.
 */
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { exitOnStartupFailure } from '@lode/runtime';
import { migrateAll } from './migrate-all.ts';

const logger = createLogger('migrate');

async function main(): Promise<void> {
  const config = loadConfig(z.object({ DATABASE_URL: env.url(), LOG_LEVEL: env.logLevel() }));
  await migrateAll(config.DATABASE_URL, logger);
  logger.info('migrations complete');
}

main().catch(exitOnStartupFailure(logger));
