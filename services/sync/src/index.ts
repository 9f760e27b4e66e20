export { startSyncService, SYNC_SCHEMA, syncMigrations, type SyncDeps, type RunningSyncService } from './start.ts';
export { PROJECTION_CONSUMER } from './handlers/commit-created.ts';
export { syncSettings } from './config.ts';
export { syncStartup } from './startup.ts';
