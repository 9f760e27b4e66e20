import path from 'node:path';
import { servePing, serveRpcs, type Bus, type EventStream } from '@lode/bus';
import { CursorCodec, migrate, type Database } from '@lode/db';
import { startOutbox, withOutbox, type OutboxOptions, type OutboxRelay } from '@lode/outbox';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { LocksRepository } from './repo/locks-repo.ts';
import { FencesRepository } from './repo/fences-repo.ts';
import { LockService } from './domain/lock-service.ts';
import { FenceService } from './domain/fence-service.ts';
import { lockRpcs } from './serve.ts';
import { consumeCommitCreated } from './handlers/commit-created.ts';

import { consumeProjectPurged } from './handlers/project-purged.ts';

export const LOCK_SCHEMA = 'locks';
export const lockMigrations = withOutbox(path.join(import.meta.dirname, '..', 'migrations'));

const DEFAULT_FENCE_PURGE_INTERVAL_MS = 60_000;

export interface LockDeps {
  db: Database;
  bus: Bus;
  /**
   * commit.created arrives here (the fallback that releases a commit's locks if settling failed),
   * and the lock service's own outbox publishes here.
   */
  events: EventStream;
  logger: Logger;
  cursorSecret: string;
  fencePurgeIntervalMs?: number;
  /** The relay runs unless `relay: false` (then the caller starts it); libs/outbox's defaults unless given. */
  outbox?: OutboxOptions;
}

export interface RunningLockService {
  /** Publishes the lock service's outbox; started here unless `outbox.relay` is false. */
  relay: OutboxRelay;
  /** Deletes expired fences now, as the periodic purge does; answers how many. */
  purgeExpiredFences(): Promise<number>;
  /** Stops the commit.created consumer, the relay and the purges, letting work in progress finish. */
  stop(): Promise<void>;
}

/** Migrates the `locks` schema, serves the lock and fence RPCs and releases committed files' locks from events. */
export async function startLockService(deps: LockDeps): Promise<RunningLockService> {
  const { db, bus, logger } = deps;
  await migrate(db, lockMigrations);
  const locks = new LocksRepository();
  const fencesRepo = new FencesRepository();
  const service = new LockService({ db, bus, locks, cursors: new CursorCodec(deps.cursorSecret), onEvents: () => outbox.relay.kick() });
  const fences = new FenceService({ db, locks, fences: fencesRepo, onEvents: () => outbox.relay.kick() });
  serveRpcs(bus, lockRpcs(service, fences));
  servePing(bus, 'lock', () => db.ping());
  const outbox = startOutbox({ db, events: deps.events, logger, options: deps.outbox });
  const releaser = await consumeCommitCreated(deps.events, fences);
  const purger = await consumeProjectPurged(deps.events, db, logger);
  const purge = runPeriodically('fence purge', deps.fencePurgeIntervalMs ?? DEFAULT_FENCE_PURGE_INTERVAL_MS, logger, () => fences.purgeExpired());
  return {
    relay: outbox.relay,
    purgeExpiredFences: () => fences.purgeExpired(),
    async stop() {
      await Promise.all([releaser.stop(), purger.stop(), purge.stop(), outbox.stop()]);
    },
  };
}
