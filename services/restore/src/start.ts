import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { migrate, type Database } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { RestoreRequestsRepository } from './repo/restore-requests-repo.ts';
import { RestoreService } from './domain/restore-service.ts';
import { restoreRpcs } from './serve.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from './config.ts';

import { consumeProjectPurged } from './handlers/project-purged.ts';

export const RESTORE_SCHEMA = 'restore';
export const restoreMigrations = path.join(import.meta.dirname, '..', 'migrations');

const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

export interface RestoreDeps {
  db: Database;
  bus: Bus;
  /** Where project.purged comes from. */
  events: EventStream;
  logger: Logger;
  /** How long a request's outcome is replayed under its X-Idempotency-Key; 24 hours unless given. */
  idempotencyTtlMs?: number;
}

export interface RunningRestoreService {
  /** Stops the housekeeping and the purge consumer, letting work in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `restore` schema, serves the restore RPC, releases expired idempotency keys and deletes purged projects' requests. */
export async function startRestoreService(deps: RestoreDeps): Promise<RunningRestoreService> {
  const { db, bus, logger } = deps;
  await migrate(db, restoreMigrations);
  const service = new RestoreService({ db, bus, requests: new RestoreRequestsRepository() });
  serveRpcs(bus, restoreRpcs(service));
  servePing(bus, 'restore', () => db.ping());
  const ttlMs = deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const housekeeping = runPeriodically('restore key release', HOUSEKEEPING_INTERVAL_MS, logger, () => service.releaseKeysOlderThan(ttlMs));
  const purger = await consumeProjectPurged(deps.events, db, logger);
  return {
    async stop() {
      await Promise.all([purger.stop(), housekeeping.stop()]);
    },
  };
}
