import { commit } from '@lode/contracts';
import { EventDeferred, type EventConsumer, type EventStream } from '@lode/bus';
import type { Projector } from '../domain/projector.ts';

/**
 * Durable, shared by every replica, and built from the start of the stream on first use, so a new
 * deployment replays every retained commit (docs/architecture.md tells how to rebuild it).
 */
export const PROJECTION_CONSUMER = 'sync-projection';

/**
 * Another consumer name builds a second, independent read model, e.g. a rebuild beside the live one.
 * Ordered by project: one project's stuck commit never holds up another project's.
 */
export function consumeCommitCreated(events: EventStream, projector: Projector, consumerName = PROJECTION_CONSUMER): Promise<EventConsumer> {
  return events.consume(
    consumerName,
    commit.commitCreated,
    async (event, meta) => {
      if ((await projector.apply(event, () => meta.earlierSettled())) === 'deferred') {
        throw new EventDeferred(`commit ${event.sequenceNum} part ${event.part} of project ${event.projectId} came before the parts ahead of it`);
      }
    },
    { deliverFrom: 'all', orderedBy: (event) => event.projectId },
  );
}
