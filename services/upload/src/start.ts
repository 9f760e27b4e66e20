import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { CursorCodec, migrate, type Database } from '@lode/db';
import { startOutbox, withOutbox, type OutboxOptions, type OutboxRelay } from '@lode/outbox';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';
import { MultipartRepository } from './repo/multipart-repo.ts';
import { FilesRepository } from './repo/files-repo.ts';
import { UploadService } from './domain/upload-service.ts';
import { ReservationCollector } from './domain/reservation-gc.ts';
import { RestorePreparer } from './domain/restore-preparer.ts';
import { PluginsRepository } from './repo/plugins-repo.ts';
import { PluginService } from './domain/plugin-service.ts';
import { uploadRpcs } from './serve.ts';
import { LfsRepository } from './repo/lfs-repo.ts';
import { LfsObjects } from './domain/lfs-objects.ts';
import { ObjectVerifier } from './domain/stored-content.ts';

export const UPLOAD_SCHEMA = 'files';
export const uploadMigrations = withOutbox(path.join(import.meta.dirname, '..', 'migrations'));

export interface UploadDeps {
  db: Database;
  bus: Bus;
  /** The upload service's outbox (plugin.published) publishes here. */
  events: EventStream;
  storage: BlobStorage;
  logger: Logger;
  /** Signs the plugin lists' cursors. */
  cursorSecret: string;
  /** The relay runs unless `relay: false` (then the caller starts it); libs/outbox's defaults unless given. */
  outbox?: OutboxOptions;
  /** Garbage collection of never-confirmed uploads; omit to run no collector in this process. */
  gc?: { intervalMs: number; graceMs: number };
}

export interface RunningUploadService {
  collector: ReservationCollector;
  /** Publishes the upload service's outbox; started here unless `outbox.relay` is false. */
  relay: OutboxRelay;
  /** Stops the periodic collector and the outbox relay, letting runs in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `files` schema, serves every upload RPC on the bus and starts the collector and the outbox relay. */
export async function startUploadService({
  db,
  bus,
  events,
  storage,
  logger,
  gc,
  cursorSecret,
  outbox: outboxOptions,
}: UploadDeps): Promise<RunningUploadService> {
  await migrate(db, uploadMigrations);
  await storage.ensureReady();
  const files = new FilesRepository();
  const multipart = new MultipartRepository();
  const service = new UploadService({ db, files, multipart, storage });
  const plugins = new PluginsRepository();
  const lfsUploads = new LfsRepository();
  const collector = new ReservationCollector({ db, kinds: [files, plugins, lfsUploads], multipart, storage, logger }, { graceMs: gc?.graceMs ?? 0 });
  const lfsObjects = new LfsObjects({ db, repo: lfsUploads, storage, verifier: new ObjectVerifier(storage) });
  const outbox = startOutbox({ db, events, logger, options: outboxOptions });
  const pluginService = new PluginService({ db, plugins, storage, cursors: new CursorCodec(cursorSecret), onPublished: () => outbox.relay.kick() });
  serveRpcs(bus, uploadRpcs(service, new RestorePreparer({ db, files, storage }), pluginService, lfsObjects));
  servePing(bus, 'upload', () => db.ping());
  const stopCollector = gc ? collector.start(gc.intervalMs) : async () => undefined;
  return {
    collector,
    relay: outbox.relay,
    async stop() {
      await Promise.all([stopCollector(), outbox.stop()]);
    },
  };
}
