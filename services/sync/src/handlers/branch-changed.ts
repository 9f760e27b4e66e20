import { branches } from '@lode/contracts';
import { EventDeferred, type EventConsumer, type EventStream } from '@lode/bus';
import type { BranchProjector } from '../domain/branch-projector.ts';

/**
 * The durable consumer of branch.changed beside a read model's commit.created consumer (named after
 * it, so a second read model gets its own), ordered by project like it.
 */
export function consumeBranchChanged(events: EventStream, projector: BranchProjector, projectionName: string): Promise<EventConsumer> {
  return events.consume(
    `${projectionName}-branches`,
    branches.branchChanged,
    async (event, meta) => {
      if ((await projector.apply(event, () => meta.earlierSettled())) === 'deferred') {
        throw new EventDeferred(`branch change ${event.change} of project ${event.projectId} came before what precedes it`);
      }
    },
    { deliverFrom: 'all', orderedBy: (event) => event.projectId },
  );
}
