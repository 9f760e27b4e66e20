export { startLockService, LOCK_SCHEMA, type LockDeps, type RunningLockService } from './start.ts';
export { lockSettings } from './config.ts';
