export { startIdentityService, IDENTITY_SCHEMA, identityMigrations, type IdentityDeps, type RunningIdentityService } from './start.ts';
export { identitySettings } from './config.ts';
export { identityStartup } from './startup.ts';
