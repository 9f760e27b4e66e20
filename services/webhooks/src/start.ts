import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { identity } from '@lode/contracts';
import { migrate, type Database } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import type { WebhooksConfig } from './config.ts';
import { DeliveriesRepository } from './repo/deliveries-repo.ts';
import { EventsRepository } from './repo/events-repo.ts';
import { WebhooksRepository } from './repo/webhooks-repo.ts';
import { DeliveryWorker } from './domain/delivery-worker.ts';
import { EventRecorder } from './domain/event-recorder.ts';
import { FeedService } from './domain/feed-service.ts';
import { FeedSignal } from './domain/feed-signal.ts';
import { recordedIdRetentionMs } from './domain/retention-plan.ts';
import { SecretBox } from './domain/secret-box.ts';
import { assertKeyOpensStoredSecrets, sealPlaintextSecrets } from './domain/stored-secrets.ts';
import { WebhookService } from './domain/webhook-service.ts';
import { consumeInternalEvents } from './handlers/internal-events.ts';
import { consumeProjectPurged } from './handlers/project-purged.ts';
import { webhooksRpcs } from './serve.ts';

export const WEBHOOKS_SCHEMA = 'webhooks';
export const webhooksMigrations = path.join(import.meta.dirname, '..', 'migrations');

/** Old events, their ids and finished deliveries are deleted hourly, past their retention. */
const PURGE_INTERVAL_MS = 3_600_000;

export interface WebhooksDeps {
  db: Database;
  bus: Bus;
  /** Where the services' internal events come from: those handlers/internal-events.ts turns into public ones. */
  events: EventStream;
  logger: Logger;
  config: WebhooksConfig;
}

export interface RunningWebhooksService {
  /** Runs the hourly purge now: events past the feed's retention, ids past theirs, finished deliveries. */
  purgeExpired(): Promise<void>;
  /** Stops consuming, the delivery worker and the purge, letting work in progress finish. */
  stop(): Promise<void>;
}

/**
 * Migrates the `webhooks` schema, checks its key against the stored secrets and seals those still
 * stored as issued, records the public events, serves webhooks and the feed, and delivers.
 */
export async function startWebhooksService(deps: WebhooksDeps): Promise<RunningWebhooksService> {
  const { db, bus, logger, config } = deps;
  await migrate(db, webhooksMigrations);
  const webhooks = new WebhooksRepository();
  const box = new SecretBox(config.secretsKey);
  await assertKeyOpensStoredSecrets(db, webhooks, box);
  const sealPlaintext = async () => {
    const sealed = await sealPlaintextSecrets(db, webhooks, box);
    if (sealed > 0) logger.info({ sealed }, 'webhook secrets stored as issued are now encrypted');
  };
  await sealPlaintext();
  const deliveries = new DeliveriesRepository();
  const events = new EventsRepository();
  const signal = new FeedSignal();
  const worker = new DeliveryWorker({
    db,
    logger,
    deliveries,
    webhooks,
    box,
    sender: { timeoutMs: config.timeoutMs, allowPrivate: config.allowPrivate },
    retry: { baseMs: config.retryBaseMs, windowMs: config.retryWindowMs },
    pollMs: config.pollMs,
  });
  const service = new WebhookService({
    db,
    webhooks,
    deliveries,
    box,
    allowPrivate: config.allowPrivate,
    onQueued: () => worker.kick(),
    // Listing one key of an unknown project is the identity service's 404, as on the admin API's keys routes.
    assertProject: async (projectId) => void (await bus.call(identity.listKeys, { projectId, limit: 1 })),
  });
  serveRpcs(bus, webhooksRpcs(service, new FeedService({ db, events, signal })));
  servePing(bus, 'webhooks', () => db.ping());
  const recorder = new EventRecorder({
    db,
    events,
    onRecorded: (projectId) => signal.notify(projectId),
    onQueued: () => worker.kick(),
  });
  const consumers = [...(await consumeInternalEvents(deps.events, recorder)), await consumeProjectPurged(deps.events, db, logger)];
  const purgeExpired = async () => {
    await events.purgeOlderThan(db, config.feedRetentionMs);
    await events.purgeRecordedIdsOlderThan(db, recordedIdRetentionMs(config));
    await deliveries.purgeFinishedOlderThan(db, config.feedRetentionMs);
  };
  const purge = runPeriodically('webhooks purge', PURGE_INTERVAL_MS, logger, purgeExpired);
  // During a rollout, replicas of an earlier version still store secrets as issued: sealed hourly too.
  const sealing = runPeriodically('webhook secret sealing', PURGE_INTERVAL_MS, logger, sealPlaintext);
  worker.kick();
  return {
    purgeExpired,
    async stop() {
      await Promise.all([...consumers.map((consumer) => consumer.stop()), worker.stop(), purge.stop(), sealing.stop()]);
    },
  };
}
