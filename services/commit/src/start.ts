import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { CursorCodec, migrate, type Database } from '@lode/db';
import { startOutbox, withOutbox, type OutboxOptions, type OutboxRelay } from '@lode/outbox';
import { runPeriodically } from '@lode/runtime';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';
import { CommitsRepository } from './repo/commits-repo.ts';
import { BranchesRepository } from './repo/branches-repo.ts';
import { HistoryRepository } from './repo/history-repo.ts';
import { DownloadsRepository } from './repo/downloads-repo.ts';
import { FilePathsRepository } from './repo/file-paths-repo.ts';
import { IdempotencyRepository } from './repo/idempotency-repo.ts';
import { LogRepository } from './repo/log-repo.ts';
import { TreePagesRepository } from './repo/tree-pages-repo.ts';
import { FolderPagesRepository } from './repo/folder-pages-repo.ts';
import { MergeRepository } from './repo/merge-repo.ts';
import { CommitService } from './domain/commit-service.ts';
import { HistoryService } from './domain/history-service.ts';
import { DownloadLinks } from './domain/download-links.ts';
import { DownloadService } from './domain/download-service.ts';
import { keyUnkeyedPaths } from './domain/path-keys.ts';
import { TreeService } from './domain/tree-service.ts';
import { BranchService } from './domain/branch-service.ts';
import { ListCursors } from './domain/list-cursors.ts';
import { LogService } from './domain/log-service.ts';
import { TreeListing } from './domain/tree-listing.ts';
import { FolderListing } from './domain/folder-listing.ts';
import { MergeService } from './domain/merge-service.ts';
import { CommitRecorder } from './domain/commit-recorder.ts';
import { DraftService } from './domain/draft-service.ts';
import { DraftsRepository } from './repo/drafts-repo.ts';
import { StagedCommitsRepository } from './repo/staged-commits-repo.ts';
import { commitRpcs } from './serve.ts';

import { consumeProjectPurged } from './handlers/project-purged.ts';

export const COMMIT_SCHEMA = 'commits';
export const commitMigrations = withOutbox(path.join(import.meta.dirname, '..', 'migrations'));

const HOUSEKEEPING_INTERVAL_MS = 3_600_000;
/** Expired drafts hold their entries until swept: at most a tenth of their lifetime, and an hour. */
const draftSweepIntervalMs = (ttlMs: number) => Math.min(HOUSEKEEPING_INTERVAL_MS, Math.max(1000, ttlMs / 10));

export interface CommitDeps {
  db: Database;
  bus: Bus;
  events: EventStream;
  /** Signs download URLs (the versions listing, batch download URLs). */
  storage: BlobStorage;
  logger: Logger;
  cursorSecret: string;
  /** `relay: false` leaves publishing to other replicas, or to the caller (relay.start()). */
  outbox: OutboxOptions;
  idempotencyTtlMs: number;
  fenceTtlMs: number;
  /** How long a draft commit lives (LODE_DRAFT_TTL_MS). */
  draftTtlMs: number;
}

export interface RunningCommitService {
  /** Publishes commit.created; started here unless `outbox.relay` is false. */
  relay: OutboxRelay;
  /** Removes expired drafts now, as the housekeeping does periodically; answers how many. */
  sweepExpiredDrafts(): Promise<number>;
  /** Stops the relay and housekeeping, letting runs in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `commits` schema, serves the commit RPCs and starts the outbox relay. */
export async function startCommitService(deps: CommitDeps): Promise<RunningCommitService> {
  const { db, bus, logger } = deps;
  await migrate(db, commitMigrations);
  const keyed = await keyUnkeyedPaths(db, new FilePathsRepository());
  if (keyed > 0) logger.info({ keyed }, 'path keys written for files committed before file_paths existed');
  const outbox = startOutbox({ db, events: deps.events, logger, options: deps.outbox });
  const repo = new CommitsRepository();
  const branchRows = new BranchesRepository();
  const recorder = new CommitRecorder({
    db,
    bus,
    logger,
    commits: repo,
    branches: branchRows,
    staged: new StagedCommitsRepository(),
    fenceTtlMs: deps.fenceTtlMs,
    onCommitted: () => outbox.relay.kick(),
  });
  const idempotency = new IdempotencyRepository();
  const commits = new CommitService({ db, bus, recorder, idempotency });
  const drafts = new DraftService({ db, bus, recorder, idempotency, drafts: new DraftsRepository(), ttlMs: deps.draftTtlMs });
  const links = new DownloadLinks(deps.storage);
  const cursorCodec = new CursorCodec(deps.cursorSecret);
  const listCursors = new ListCursors(cursorCodec);
  serveRpcs(
    bus,
    commitRpcs({
      commitService: commits,
      draftService: drafts,
      historyService: new HistoryService({ db, bus, history: new HistoryRepository(), links, cursors: cursorCodec }),
      downloadService: new DownloadService({ db, bus, downloads: new DownloadsRepository(), links }),
      treeService: new TreeService({ db, commits: repo }),
      // A branch change kicks the relay once committed, so branch.changed is published at once.
      branchService: new BranchService({ db, branches: branchRows, cursors: listCursors, onChanged: () => outbox.relay.kick() }),
      mergeService: new MergeService({ db, bus, branches: branchRows, merges: new MergeRepository(), recorder }),
      logService: new LogService({ db, log: new LogRepository(), cursors: listCursors }),
      treeListing: new TreeListing({ db, pages: new TreePagesRepository(), cursors: listCursors }),
      folderListing: new FolderListing({ db, pages: new FolderPagesRepository(), cursors: listCursors }),
    }),
  );
  servePing(bus, 'commit', () => db.ping());
  const housekeeping = runPeriodically('commit housekeeping', HOUSEKEEPING_INTERVAL_MS, logger, () => commits.purgeOutcomesOlderThan(deps.idempotencyTtlMs));
  const draftSweep = runPeriodically('draft sweep', draftSweepIntervalMs(deps.draftTtlMs), logger, () => drafts.sweepExpired());
  const purger = await consumeProjectPurged(deps.events, db, logger);
  return {
    relay: outbox.relay,
    sweepExpiredDrafts: () => drafts.sweepExpired(),
    async stop() {
      await Promise.all([purger.stop(), outbox.stop(), housekeeping.stop(), draftSweep.stop()]);
    },
  };
}
