import path from 'node:path';
import { IDENTITY_SCHEMA, identityMigrations, identityStartup } from '@lode/identity';
import { UPLOAD_SCHEMA, uploadMigrations, uploadStartup } from '@lode/upload';
import { COMMIT_SCHEMA, commitMigrations, commitStartup } from '@lode/commit';
import { LOCK_SCHEMA, lockMigrations, lockStartup } from '@lode/lock';
import { SYNC_SCHEMA, syncMigrations, syncStartup } from '@lode/sync';
import { RESTORE_SCHEMA, restoreMigrations, restoreStartup } from '@lode/restore';
import { WEBHOOKS_SCHEMA, webhooksMigrations, webhooksStartup } from '@lode/webhooks';
import { defineService, type ServiceDefinition } from './definition.ts';
import type { SERVICE_NAMES } from './names.ts';
import { type ServiceName } from './names.ts';

/** One definition per name of names.ts, in its order: a service missing from either list fails the typecheck. */
type DefinitionsOf<Names extends readonly string[]> = { readonly [I in keyof Names]: ServiceDefinition<Names[I] & string> };

/** The one entry that runs any service of this list as its own process, the one SERVICE names. */
export const SERVICE_ENTRY = path.resolve(import.meta.dirname, 'service-main.ts');

/**
 * The system: every service behind the bus, in start order (a service's consumers exist before
 * anything publishes to them). The embedded process, each service's own process (service-main.ts),
 * the migration job, the deploy checks and the test stacks are all built from this list; a new
 * service is added here (and to names.ts), in its own package, and in the deploy manifests.
 */
export const SERVICES = [
  defineService({ name: 'identity', schema: IDENTITY_SCHEMA, migrations: identityMigrations, ...identityStartup }),
  defineService({ name: 'upload', schema: UPLOAD_SCHEMA, migrations: uploadMigrations, ...uploadStartup }),
  defineService({ name: 'commit', schema: COMMIT_SCHEMA, migrations: commitMigrations, ...commitStartup }),
  defineService({ name: 'lock', schema: LOCK_SCHEMA, migrations: lockMigrations, ...lockStartup }),
  defineService({ name: 'sync', schema: SYNC_SCHEMA, migrations: syncMigrations, ...syncStartup }),
  defineService({ name: 'restore', schema: RESTORE_SCHEMA, migrations: restoreMigrations, ...restoreStartup }),
  defineService({ name: 'webhooks', schema: WEBHOOKS_SCHEMA, migrations: webhooksMigrations, ...webhooksStartup }),
] as const satisfies DefinitionsOf<typeof SERVICE_NAMES>;

export type Service = (typeof SERVICES)[number];
export type RunningOf<N extends ServiceName> = Awaited<ReturnType<Extract<Service, { name: N }>['start']>>;

export function serviceNamed<N extends ServiceName>(name: N): Extract<Service, { name: N }> {
  const found = SERVICES.find((service): service is Extract<Service, { name: N }> => service.name === name);
  if (!found) throw new Error(`No service ${name} in the registry`);
  return found;
}
