import { projectDeletion } from '@lode/contracts';
import type { EventConsumer, EventStream } from './events.ts';
import type { ServiceName } from './service-names.ts';

/**
 * A service's part of purging a project: a durable consumer of project.purged, shared by every
 * replica and ordered by project, that runs `purge` until it succeeds. Each service removes only
 * what it owns, and removing what is already gone changes nothing, so a redelivery or two replicas
 * on one project are harmless.
 */
export function consumeProjectPurges(events: EventStream, service: ServiceName, purge: (projectId: string) => Promise<unknown>): Promise<EventConsumer> {
  return events.consume(
    `${service}-project-purger`,
    projectDeletion.projectPurged,
    async ({ projectId }) => {
      await purge(projectId);
    },
    { orderedBy: (event) => event.projectId },
  );
}
