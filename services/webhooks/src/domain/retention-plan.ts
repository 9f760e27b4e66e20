/**
 * How late an internal event can be handed over again past its outbox retention: the outbox purges
 * published rows hourly (libs/outbox), so one lives up to an hour longer; the second hour is spare
 * (a slow relay batch, the clock of another service's database).
 */
const OUTBOX_PURGE_LAG_MS = 2 * 3_600_000;

/**
 * How long a recorded public event's id is remembered (table recorded_event_ids): as long as the event
 * is on the feed, and as long as its internal event may still arrive again. The embedded mode replays
 * every service's retained outbox at each start (docs/api.md, Public events), so an id forgotten
 * earlier would make a replayed event new: recorded, delivered and shown on the feed a second time.
 */
export function recordedIdRetentionMs(config: { feedRetentionMs: number; outboxRetentionMs: number }): number {
  return Math.max(config.feedRetentionMs, config.outboxRetentionMs + OUTBOX_PURGE_LAG_MS);
}
