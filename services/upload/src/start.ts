import path from 'node:path';
import type { Bus } from '@lode/bus';
import { migrate, type Database } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import { FilesRepository } from './repo/files-repo.ts';
import { UploadService } from './domain/upload-service.ts';
import { serveInitiate } from './handlers/initiate.ts';
import { serveInitiateBatch } from './handlers/initiate-batch.ts';
import { serveConfirm } from './handlers/confirm.ts';
import { servePing } from './handlers/ping.ts';

export const UPLOAD_SCHEMA = 'files';
export const uploadMigrations = path.join(import.meta.dirname, '..', 'migrations');

export interface UploadDeps {
  db: Database;
  bus: Bus;
  storage: BlobStorage;
}

/** Migrates the `files` schema and serves every upload RPC on the bus. */
export async function startUploadService({ db, bus, storage }: UploadDeps): Promise<void> {
  await migrate(db, uploadMigrations);
  await storage.ensureReady();
  const service = new UploadService(new FilesRepository(db), storage);
  serveInitiate(bus, service);
  serveInitiateBatch(bus, service);
  serveConfirm(bus, service);
  servePing(bus, db);
}
