import { commit } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import type { Projector } from '../domain/projector.ts';

/**
 * Durable, shared by every replica, and built from the start of the stream on first use, so a new
 * deployment replays every retained commit (docs/architecture.md tells how to rebuild it).
 */
export const PROJECTION_CONSUMER = 'sync-projection';

/** Another consumer name builds a second, independent read model, e.g. a rebuild beside the live one. */
export function consumeCommitCreated(events: EventStream, projector: Projector, consumerName = PROJECTION_CONSUMER): Promise<EventConsumer> {
  return events.consume(consumerName, commit.commitCreated, (event) => projector.apply(event), { deliverFrom: 'all' });
}
