import type { EventStream } from '@lode/bus';
import type { Database } from '@lode/db';
import { runPeriodically } from '@lode/runtime';
import type { Logger } from '@lode/telemetry';
import { OutboxRelay } from './relay.ts';
import { DEFAULT_OUTBOX_OPTIONS, type OutboxOptions } from './settings.ts';

/** Published events are old news after their retention; deleting them hourly keeps the table small. */
const PURGE_INTERVAL_MS = 3_600_000;

export interface RunningOutbox {
  /**
   * Publishes the service's outbox. kick() it after a transaction that wrote events committed; a
   * caller that passed `relay: false` may replayRetained() and then start() it.
   */
  relay: OutboxRelay;
  /** Stops the relay and the purge, letting runs in progress finish. */
  stop(): Promise<void>;
}

/**
 * Runs a service's outbox the same way in every service: the relay (unless `relay: false`) and,
 * on every replica, the purge of published events. The schema holds the table through withOutbox.
 */
export function startOutbox(deps: { db: Database; events: EventStream; logger: Logger; options?: OutboxOptions }): RunningOutbox {
  const options = deps.options ?? DEFAULT_OUTBOX_OPTIONS;
  const relay = new OutboxRelay(deps.db, deps.events, deps.logger, { pollMs: options.pollMs, retentionMs: options.retentionMs });
  if (options.relay) relay.start();
  const purge = runPeriodically(`${deps.db.schema} outbox purge`, PURGE_INTERVAL_MS, deps.logger, () => relay.purgePublished());
  return {
    relay,
    async stop() {
      await Promise.all([relay.stop(), purge.stop()]);
    },
  };
}
