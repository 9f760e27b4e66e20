import path from 'node:path';
import { servePing, type Bus, type EventStream } from '@lode/bus';
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
import { CommitService } from './domain/commit-service.ts';
import { HistoryService } from './domain/history-service.ts';
import { DownloadLinks } from './domain/download-links.ts';
import { DownloadService } from './domain/download-service.ts';
import { keyUnkeyedPaths } from './domain/path-keys.ts';
import { TreeService } from './domain/tree-service.ts';
import { serveCreateCommit } from './handlers/create-commit.ts';
import { serveListVersions } from './handlers/list-versions.ts';
import { serveDownloadUrls } from './handlers/download-urls.ts';
import { serveLatestSequence } from './handlers/latest-sequence.ts';
import { serveTreeStates } from './handlers/tree-states.ts';
import { serveBranches } from './serve-branches.ts';
import { CommitRecorder } from './domain/commit-recorder.ts';
import { DraftService } from './domain/draft-service.ts';
import { DraftsRepository } from './repo/drafts-repo.ts';
import { StagedCommitsRepository } from './repo/staged-commits-repo.ts';
import { serveDrafts } from './serve-drafts.ts';

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
  serveDrafts(bus, drafts);
  const links = new DownloadLinks(deps.storage);
  const history = new HistoryService({ db, bus, history: new HistoryRepository(), links, cursors: new CursorCodec(deps.cursorSecret) });
  serveCreateCommit(bus, commits);
  serveListVersions(bus, history);
  serveDownloadUrls(bus, new DownloadService({ db, downloads: new DownloadsRepository(), links }));
  const tree = new TreeService({ db, commits: repo });
  serveLatestSequence(bus, tree);
  serveTreeStates(bus, tree);
  serveBranches({ db, bus, cursorSecret: deps.cursorSecret, recorder, branches: branchRows, onChanged: () => outbox.relay.kick() });
  servePing(bus, 'commit', () => db.ping());
  const housekeeping = runPeriodically('commit housekeeping', HOUSEKEEPING_INTERVAL_MS, logger, () => commits.purgeOutcomesOlderThan(deps.idempotencyTtlMs));
  const draftSweep = runPeriodically('draft sweep', draftSweepIntervalMs(deps.draftTtlMs), logger, () => drafts.sweepExpired());
  return {
    relay: outbox.relay,
    sweepExpiredDrafts: () => drafts.sweepExpired(),
    async stop() {
      await Promise.all([outbox.stop(), housekeeping.stop(), draftSweep.stop()]);
    },
  };
}
