import { env } from '@lode/config';

/** How a service's outbox runs (startOutbox). */
export interface OutboxOptions {
  /**
   * Whether this replica publishes the outbox. Any number may (one publishes at a time); false leaves
   * publishing to other replicas, or to a caller that starts the relay itself (the embedded process
   * replays the retained events first).
   */
  relay: boolean;
  /** How often the relay looks for unpublished events when nothing kicked it. */
  pollMs: number;
  /** How long published events are kept before they are deleted. */
  retentionMs: number;
}

export const DEFAULT_OUTBOX_OPTIONS: OutboxOptions = { relay: true, pollMs: 1000, retentionMs: 86_400_000 };

/** The settings of every service with an outbox; spread into the service's settings. */
export const outboxSettings = {
  LODE_OUTBOX_RELAY: env.flag(DEFAULT_OUTBOX_OPTIONS.relay),
  /** A transaction that wrote events wakes the relay at once; the poll catches other replicas' events. */
  LODE_OUTBOX_POLL_MS: env.int(DEFAULT_OUTBOX_OPTIONS.pollMs, 10),
  LODE_OUTBOX_RETENTION_MS: env.int(DEFAULT_OUTBOX_OPTIONS.retentionMs),
};

export function outboxOptions(config: { LODE_OUTBOX_RELAY: boolean; LODE_OUTBOX_POLL_MS: number; LODE_OUTBOX_RETENTION_MS: number }): OutboxOptions {
  return { relay: config.LODE_OUTBOX_RELAY, pollMs: config.LODE_OUTBOX_POLL_MS, retentionMs: config.LODE_OUTBOX_RETENTION_MS };
}
