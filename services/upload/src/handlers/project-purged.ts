import { projectDeletion } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import type { ProjectPurger } from '../domain/project-purger.ts';

/**
 * Durable, shared by every replica: a purged project's objects and rows are deleted here, retried
 * until done (every step is idempotent, so a redelivery is harmless).
 */
export const PROJECT_PURGER = 'upload-project-purger';

export function consumeProjectPurged(events: EventStream, purger: ProjectPurger): Promise<EventConsumer> {
  return events.consume(PROJECT_PURGER, projectDeletion.projectPurged, ({ projectId }) => purger.purge(projectId), {
    orderedBy: (event) => event.projectId,
  });
}
