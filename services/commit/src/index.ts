export { startCommitService, COMMIT_SCHEMA, type CommitDeps, type RunningCommitService } from './start.ts';
export { commitSettings } from './config.ts';
