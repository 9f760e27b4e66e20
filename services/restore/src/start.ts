import path from 'node:path';
import { servePing, serveRpcs, type Bus } from '@lode/bus';
import { migrate, type Database } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { RestoreRequestsRepository } from './repo/restore-requests-repo.ts';
import { RestoreService } from './domain/restore-service.ts';
import { restoreRpcs } from './serve.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from './config.ts';

export const RESTORE_SCHEMA = 'restore';
export const restoreMigrations = path.join(import.meta.dirname, '..', 'migrations');

const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

export interface RestoreDeps {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** How long a request's outcome is replayed under its X-Idempotency-Key; 24 hours unless given. */
  idempotencyTtlMs?: number;
}

export interface RunningRestoreService {
  /** Stops the housekeeping, letting a run in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `restore` schema, serves the restore RPC and releases expired idempotency keys. */
export async function startRestoreService(deps: RestoreDeps): Promise<RunningRestoreService> {
  const { db, bus, logger } = deps;
  await migrate(db, restoreMigrations);
  const service = new RestoreService({ db, bus, requests: new RestoreRequestsRepository() });
  serveRpcs(bus, restoreRpcs(service));
  servePing(bus, 'restore', () => db.ping());
  const ttlMs = deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const housekeeping = runPeriodically('restore key release', HOUSEKEEPING_INTERVAL_MS, logger, () => service.releaseKeysOlderThan(ttlMs));
  return { stop: () => housekeeping.stop() };
}
