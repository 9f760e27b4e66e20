export { startSyncService, SYNC_SCHEMA, syncMigrations, PROJECTION_CONSUMER, type SyncDeps, type RunningSyncService } from './start.ts';
export { syncSettings } from './config.ts';
