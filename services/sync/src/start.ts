import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { CursorCodec, migrate, type Database } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { BranchesRepository } from './repo/branches-repo.ts';
import { HistoryRepository } from './repo/history-repo.ts';
import { ProgressRepository } from './repo/progress-repo.ts';
import { SessionsRepository } from './repo/sessions-repo.ts';
import { StagingRepository } from './repo/staging-repo.ts';
import { TreeRepository } from './repo/tree-repo.ts';
import { AppliedSignal } from './domain/applied-signal.ts';
import { BranchProjector } from './domain/branch-projector.ts';
import { Projector } from './domain/projector.ts';
import { SyncService } from './domain/sync-service.ts';
import { syncRpcs } from './serve.ts';
import { consumeCommitCreated, PROJECTION_CONSUMER } from './handlers/commit-created.ts';
import { consumeBranchChanged } from './handlers/branch-changed.ts';

import { consumeProjectPurged } from './handlers/project-purged.ts';

export const SYNC_SCHEMA = 'sync';
export const syncMigrations = path.join(import.meta.dirname, '..', 'migrations');
const SESSION_PURGE_INTERVAL_MS = 300_000;

export interface SyncDeps {
  db: Database;
  bus: Bus;
  events: EventStream;
  logger: Logger;
  /** How long a sync waits for the read model to apply the project's latest commit. */
  catchUpMs: number;
  /** Signs the cursors of GET /changes; every replica must share it. */
  cursorSecret: string;
  /** Another consumer name builds a second, independent read model, e.g. a rebuild beside the live one. */
  consumerName?: string;
}

export interface RunningSyncService {
  /** Stops consuming (after the event in hand is applied) and the session purge. */
  stop(): Promise<void>;
}

/** Migrates the `sync` schema, serves the sync RPCs and keeps the read model up with commit.created and branch.changed. */
export async function startSyncService(deps: SyncDeps): Promise<RunningSyncService> {
  const { db, bus, logger } = deps;
  await migrate(db, syncMigrations);
  const progress = new ProgressRepository();
  const branches = new BranchesRepository();
  const tree = new TreeRepository();
  const applied = new AppliedSignal();
  const projector = new Projector({
    db,
    logger,
    progress,
    staging: new StagingRepository(),
    branches,
    tree,
    history: new HistoryRepository(),
    onApplied: () => applied.notify(),
  });
  const service = new SyncService({
    db,
    bus,
    progress,
    branches,
    tree,
    sessions: new SessionsRepository(),
    applied,
    cursors: new CursorCodec(deps.cursorSecret),
    catchUpMs: deps.catchUpMs,
    onSessionFinished: () => purge.kick(),
  });
  const purge = runPeriodically('sync session purge', SESSION_PURGE_INTERVAL_MS, logger, () => service.purgeSessions());
  serveRpcs(bus, syncRpcs(service));
  servePing(bus, 'sync', () => db.ping());
  const consumer = await consumeCommitCreated(deps.events, projector, deps.consumerName);
  const branchProjector = new BranchProjector({ db, logger, progress, branches, tree, onApplied: () => applied.notify() });
  const branchConsumer = await consumeBranchChanged(deps.events, branchProjector, deps.consumerName ?? PROJECTION_CONSUMER);
  const purger = await consumeProjectPurged(deps.events, db, logger);
  return {
    async stop() {
      await Promise.all([consumer.stop(), branchConsumer.stop(), purger.stop(), purge.stop()]);
    },
  };
}
