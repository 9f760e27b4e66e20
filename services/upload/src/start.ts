import path from 'node:path';
import { identity, sessions } from '@lode/contracts';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { CursorCodec, migrate, type Database } from '@lode/db';
import { startOutbox, withOutbox, type OutboxOptions, type OutboxRelay } from '@lode/outbox';
import { runPeriodically } from '@lode/runtime';
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
import { UsageRepository } from './repo/usage-repo.ts';
import { UsageService } from './domain/usage-service.ts';
import { ObliterateRepository } from './repo/obliterate-repo.ts';
import { Obliterator } from './domain/obliterator.ts';
import { CollectableRepository } from './repo/collectable-repo.ts';
import { ObjectCollector } from './domain/object-gc.ts';
import { QuotaRepository } from './repo/quota-repo.ts';
import { QuotaService } from './domain/quota-service.ts';
import { VersionPurger } from './domain/version-purge.ts';
import { RetentionRepository } from './repo/retention-repo.ts';
import { RetentionEvaluator } from './domain/retention-evaluator.ts';
import { RetentionService } from './domain/retention-service.ts';
import { OrgDirectory } from './domain/org-directory.ts';
import { OrgQuotaRepository } from './repo/org-quota-repo.ts';
import { OrgQuotaService } from './domain/org-quota-service.ts';
import { OrgUsageService } from './domain/org-usage-service.ts';
import { ProjectPurgeRepository } from './repo/project-purge-repo.ts';
import { ProjectPurger } from './domain/project-purger.ts';
import { consumeProjectPurged } from './handlers/project-purged.ts';

export const UPLOAD_SCHEMA = 'files';
/** Files a retention batch reads and purges in one transaction. */
const RETENTION_BATCH_FILES = 250;
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
  /** How often usage deltas are folded into the totals; omit to fold only when asked (usage.fold()). */
  usageFoldIntervalMs?: number;
  /** How often each project's retention rules are applied, looked for on the collector's interval; omit to apply them only when asked. */
  retentionIntervalMs?: number;
}

export interface RunningUploadService {
  collector: ReservationCollector;
  /** The collector of objects nothing refers to any more (after obliterations), to run on demand. */
  objects: ObjectCollector;
  /** Storage usage: its fold, to run on demand, and the recount it must equal. */
  usage: UsageService;
  /** Quotas: the warnings that follow a fold, to run on demand. */
  quotas: QuotaService;
  /** Retention: the periodic job's pass (runDue), to run on demand. */
  retention: RetentionService;
  /** Org quotas: their warnings, which follow a fold too. */
  orgQuotas: OrgQuotaService;
  /** Publishes the upload service's outbox; started here unless `outbox.relay` is false. */
  relay: OutboxRelay;
  /** Stops the periodic collector, the purge consumer and the outbox relay, letting runs in progress finish. */
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
  usageFoldIntervalMs,
  retentionIntervalMs,
}: UploadDeps): Promise<RunningUploadService> {
  await migrate(db, uploadMigrations);
  await storage.ensureReady();
  const files = new FilesRepository();
  const multipart = new MultipartRepository();
  const outbox = startOutbox({ db, events, logger, options: outboxOptions });
  // Listing one key of an unknown project is the identity service's 404, as on the admin API's keys routes.
  const assertProject = async (projectId: string) => void (await bus.call(identity.listKeys, { projectId, limit: 1 }));
  const usageRows = new UsageRepository();
  // The identity service owns orgs: which projects one holds, and a dashboard user's role in it.
  const directory = new OrgDirectory({
    storedProjects: (orgId, page) => bus.call(identity.listStoredProjects, { orgId, ...page }),
    myOrgs: async (viewerId) => (await bus.call(sessions.myOrgs, { viewerId })).data,
  });
  const orgQuotas = new OrgQuotaService({ db, quotas: new OrgQuotaRepository(), usage: usageRows, directory, onWarned: () => outbox.relay.kick() });
  const quotas = new QuotaService({
    db,
    quotas: new QuotaRepository(),
    usage: usageRows,
    assertProject,
    onWarned: () => outbox.relay.kick(),
    orgBudget: (orgId, projectId) => orgQuotas.budget(orgId, projectId),
  });
  const service = new UploadService({ db, files, multipart, storage, quotas });
  const plugins = new PluginsRepository();
  const lfsUploads = new LfsRepository();
  const collector = new ReservationCollector({ db, kinds: [files, plugins, lfsUploads], multipart, storage, logger }, { graceMs: gc?.graceMs ?? 0 });
  const lfsObjects = new LfsObjects({ db, repo: lfsUploads, storage, verifier: new ObjectVerifier(storage), quotas });
  const pluginService = new PluginService({ db, plugins, storage, cursors: new CursorCodec(cursorSecret), onPublished: () => outbox.relay.kick() });
  const collectable = new CollectableRepository();
  const usage = new UsageService({ db, usage: usageRows, collectable, assertProject, quotaOf: (projectId) => quotas.effective(projectId) });
  const objects = new ObjectCollector({ db, collectable, storage, logger }, { graceMs: gc?.graceMs ?? 0 });
  const obliterations = new ObliterateRepository();
  const purger = new VersionPurger({ files, obliterations, collectable });
  const obliterator = new Obliterator({ db, obliterations, purger, secret: cursorSecret, onObliterated: () => outbox.relay.kick() });
  const retentionRepo = new RetentionRepository();
  const retention = new RetentionService({
    db,
    retention: retentionRepo,
    evaluator: new RetentionEvaluator({ db, bus, retention: retentionRepo }, { batchSize: RETENTION_BATCH_FILES }),
    purger,
    secret: cursorSecret,
    onApplied: () => outbox.relay.kick(),
  });
  serveRpcs(
    bus,
    uploadRpcs({
      uploadService: service,
      restorePreparer: new RestorePreparer({ db, files, storage }),
      pluginService,
      lfsObjects,
      usageService: usage,
      obliterator,
      quotaService: quotas,
      retentionService: retention,
      orgUsageService: new OrgUsageService({ db, usage: usageRows, directory, quotas: orgQuotas }),
      orgQuotaService: orgQuotas,
    }),
  );
  servePing(bus, 'upload', () => db.ping());
  const stopCollector = gc ? collector.start(gc.intervalMs) : async () => undefined;
  // Beside the reservation collector, on its interval: objects whose marks are past the grace.
  const objectCollection = gc ? runPeriodically('object collection', gc.intervalMs, logger, () => objects.runOnce()) : undefined;
  // Beside the collectors, on their interval: the projects whose rules are due (once per retention interval each).
  const retentionJob =
    gc && retentionIntervalMs !== undefined ? runPeriodically('retention', gc.intervalMs, logger, () => retention.runDue(retentionIntervalMs)) : undefined;
  // Quota warnings read the folded totals: each fold is followed by a look at the crossings.
  const fold =
    usageFoldIntervalMs === undefined
      ? undefined
      : runPeriodically('usage fold', usageFoldIntervalMs, logger, async () => {
          await usage.fold();
          await quotas.warnCrossings();
          await orgQuotas.warnCrossings();
        });
  const unobserve = [usage.observeGauges(), orgQuotas.observeGauges(), objects.observeGauges()];
  const projectPurges = await consumeProjectPurged(events, new ProjectPurger({ db, repo: new ProjectPurgeRepository(), storage, logger }));
  return {
    collector,
    objects,
    usage,
    quotas,
    retention,
    orgQuotas,
    relay: outbox.relay,
    async stop() {
      for (const stopObserving of unobserve) stopObserving();
      await Promise.all([projectPurges.stop(), stopCollector(), objectCollection?.stop(), retentionJob?.stop(), fold?.stop(), outbox.stop()]);
    },
  };
}
