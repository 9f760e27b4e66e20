export { startCommitService, COMMIT_SCHEMA, commitMigrations, type CommitDeps, type RunningCommitService } from './start.ts';
export { commitSettings } from './config.ts';
export { commitStartup } from './startup.ts';
