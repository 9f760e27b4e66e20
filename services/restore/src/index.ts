export { startRestoreService, RESTORE_SCHEMA, restoreMigrations, type RestoreDeps, type RunningRestoreService } from './start.ts';
export { restoreSettings } from './config.ts';
export { restoreStartup } from './startup.ts';
