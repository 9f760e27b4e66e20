import path from 'node:path';
import { servePing, type Bus } from '@lode/bus';
import { migrate, type Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';
import { FilesRepository } from './repo/files-repo.ts';
import { UploadService } from './domain/upload-service.ts';
import { ReservationCollector } from './domain/reservation-gc.ts';
import { RestorePreparer } from './domain/restore-preparer.ts';
import { serveInitiate } from './handlers/initiate.ts';
import { serveInitiateBatch } from './handlers/initiate-batch.ts';
import { serveConfirm } from './handlers/confirm.ts';
import { serveResolveVersions } from './handlers/resolve-versions.ts';
import { servePrepareRestore } from './handlers/prepare-restore.ts';

export const UPLOAD_SCHEMA = 'files';
export const uploadMigrations = path.join(import.meta.dirname, '..', 'migrations');

export interface UploadDeps {
  db: Database;
  bus: Bus;
  storage: BlobStorage;
  logger: Logger;
  /** Garbage collection of never-confirmed uploads; omit to run no collector in this process. */
  gc?: { intervalMs: number; graceMs: number };
}

export interface RunningUploadService {
  collector: ReservationCollector;
  /** Stops the periodic collector, letting a run in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `files` schema, serves every upload RPC on the bus and starts the collector. */
export async function startUploadService({ db, bus, storage, logger, gc }: UploadDeps): Promise<RunningUploadService> {
  await migrate(db, uploadMigrations);
  await storage.ensureReady();
  const files = new FilesRepository();
  const service = new UploadService({ db, files, storage });
  const collector = new ReservationCollector({ db, files, storage, logger }, { graceMs: gc?.graceMs ?? 0 });
  serveInitiate(bus, service);
  serveInitiateBatch(bus, service);
  serveConfirm(bus, service);
  serveResolveVersions(bus, service);
  servePrepareRestore(bus, new RestorePreparer({ db, files, storage }));
  servePing(bus, 'upload', () => db.ping());
  const stopCollector = gc ? collector.start(gc.intervalMs) : async () => undefined;
  return { collector, stop: stopCollector };
}
