import { logPage, treePage } from './browse.ts';
import { cliTransfers, sdkPush } from './cli.ts';
import { commitLarge, commitOne } from './commits.ts';
import { confirmBatch } from './confirm-batch.ts';
import { draftCommit } from './drafts.ts';
import { downloadUrls } from './downloads.ts';
import { gitLfs } from './git-lfs.ts';
import { largeFile } from './large-file.ts';
import { restoreFiles } from './restore.ts';
import { retentionMark } from './retention.ts';
import type { Scenario } from './scenario.ts';
import { listVersions, lockUnlock, validateKey } from './small-calls.ts';
import { objectCollection, usageRead } from './storage.ts';
import { syncProject } from './sync.ts';
import { initiateBatch, push, pushMemory } from './uploads.ts';
import { workspaceStatus } from './workspace-status.ts';

/** Every scenario in running order: small calls while the database is small, the largest setups last. */
export const SCENARIOS: readonly Scenario[] = [
  validateKey,
  lockUnlock,
  listVersions,
  logPage,
  initiateBatch,
  confirmBatch,
  push,
  pushMemory,
  commitOne,
  commitLarge,
  restoreFiles,
  downloadUrls,
  treePage,
  syncProject,
  draftCommit,
  sdkPush,
  cliTransfers,
  workspaceStatus,
  largeFile,
  gitLfs,
  usageRead,
  objectCollection,
  retentionMark,
];

export type { BenchContext, Scenario, ScenarioResult } from './scenario.ts';
