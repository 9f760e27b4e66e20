export { startLockService, LOCK_SCHEMA, lockMigrations, type LockDeps, type RunningLockService } from './start.ts';
export { lockSettings } from './config.ts';
export { lockStartup } from './startup.ts';
