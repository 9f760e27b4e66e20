import path from 'node:path';
import { cursorSecretSetting } from '@lode/db';
import { outboxOptions } from '@lode/outbox';
import { storageSettings } from '@lode/storage';
import { IDENTITY_SCHEMA, identityMigrations, identitySettings, startIdentityService } from '@lode/identity';
import { startUploadService, UPLOAD_SCHEMA, uploadMigrations, uploadSettings } from '@lode/upload';
import { COMMIT_SCHEMA, commitMigrations, commitSettings, startCommitService } from '@lode/commit';
import { LOCK_SCHEMA, lockMigrations, lockSettings, startLockService } from '@lode/lock';
import { startSyncService, SYNC_SCHEMA, syncMigrations, syncSettings } from '@lode/sync';
import { RESTORE_SCHEMA, restoreMigrations, restoreSettings, startRestoreService } from '@lode/restore';
import { startWebhooksService, WEBHOOKS_SCHEMA, webhooksConfig, webhooksMigrations, webhooksSettings } from '@lode/webhooks';
import { defineService, type ServiceDefinition } from './definition.ts';
import type { SERVICE_NAMES} from './names.ts';
import { type ServiceName } from './names.ts';

/** One definition per name of names.ts, in its order: a service missing from either list fails the typecheck. */
type DefinitionsOf<Names extends readonly string[]> = { readonly [I in keyof Names]: ServiceDefinition<Names[I] & string> };

/** services/<name>/src/main.ts: each service's own process, as the image and the launcher run it. */
const entryOf = (name: ServiceName) => path.resolve(import.meta.dirname, '../..', name, 'src/main.ts');

/**
 * The system: every service behind the bus, in start order (a service's consumers exist before
 * anything publishes to them). The embedded process, the migration job, the multi-process launcher,
 * the deploy checks and the test stacks are all built from this list; a new service is added here
 * (and to names.ts), in its own package, and in the deploy manifests.
 */
export const SERVICES = [
  defineService({
    name: 'identity',
    schema: IDENTITY_SCHEMA,
    migrations: identityMigrations,
    entry: entryOf('identity'),
    settings: identitySettings,
    start: (runtime, config) => startIdentityService({ ...runtime, cursorSecret: config.LODE_CURSOR_SECRET, outbox: outboxOptions(config) }),
  }),
  defineService({
    name: 'upload',
    schema: UPLOAD_SCHEMA,
    migrations: uploadMigrations,
    entry: entryOf('upload'),
    settings: { ...storageSettings, ...uploadSettings },
    start: (runtime, config) =>
      startUploadService({
        ...runtime,
        gc: { intervalMs: config.LODE_GC_INTERVAL_MS, graceMs: config.LODE_GC_GRACE_MS },
        cursorSecret: config.LODE_CURSOR_SECRET,
        outbox: outboxOptions(config),
      }),
  }),
  defineService({
    name: 'commit',
    schema: COMMIT_SCHEMA,
    migrations: commitMigrations,
    entry: entryOf('commit'),
    settings: { ...storageSettings, ...commitSettings, ...cursorSecretSetting },
    start: (runtime, config) =>
      startCommitService({
        ...runtime,
        cursorSecret: config.LODE_CURSOR_SECRET,
        outbox: outboxOptions(config),
        idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS,
        fenceTtlMs: config.LODE_LOCK_FENCE_TTL_MS,
        draftTtlMs: config.LODE_DRAFT_TTL_MS,
      }),
  }),
  defineService({
    name: 'lock',
    schema: LOCK_SCHEMA,
    migrations: lockMigrations,
    entry: entryOf('lock'),
    settings: { ...lockSettings, ...cursorSecretSetting },
    start: (runtime, config) =>
      startLockService({ ...runtime, cursorSecret: config.LODE_CURSOR_SECRET, fencePurgeIntervalMs: config.LODE_FENCE_PURGE_INTERVAL_MS, outbox: outboxOptions(config) }),
  }),
  defineService({
    name: 'sync',
    schema: SYNC_SCHEMA,
    migrations: syncMigrations,
    entry: entryOf('sync'),
    settings: syncSettings,
    start: (runtime, config) => startSyncService({ ...runtime, catchUpMs: config.LODE_SYNC_CATCH_UP_MS }),
  }),
  defineService({
    name: 'restore',
    schema: RESTORE_SCHEMA,
    migrations: restoreMigrations,
    entry: entryOf('restore'),
    settings: restoreSettings,
    start: (runtime, config) => startRestoreService({ ...runtime, idempotencyTtlMs: config.LODE_IDEMPOTENCY_TTL_MS }),
  }),
  defineService({
    name: 'webhooks',
    schema: WEBHOOKS_SCHEMA,
    migrations: webhooksMigrations,
    entry: entryOf('webhooks'),
    settings: webhooksSettings,
    start: (runtime, config) => startWebhooksService({ ...runtime, config: webhooksConfig(config) }),
  }),
] as const satisfies DefinitionsOf<typeof SERVICE_NAMES>;

export type Service = (typeof SERVICES)[number];
export type RunningOf<N extends ServiceName> = Awaited<ReturnType<Extract<Service, { name: N }>['start']>>;

export function serviceNamed<N extends ServiceName>(name: N): Extract<Service, { name: N }> {
  const found = SERVICES.find((service): service is Extract<Service, { name: N }> => service.name === name);
  if (!found) throw new Error(`No service ${name} in the registry`);
  return found;
}
