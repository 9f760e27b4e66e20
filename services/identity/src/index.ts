export { startIdentityService, IDENTITY_SCHEMA, identityMigrations, type IdentityDeps, type RunningIdentityService } from './start.ts';
export { identitySettings } from './config.ts';
