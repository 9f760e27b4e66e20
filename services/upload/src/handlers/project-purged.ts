import { consumeProjectPurges, type EventConsumer, type EventStream } from '@lode/bus';
import type { ProjectPurger } from '../domain/project-purger.ts';

/** Deletes a purged project's objects, then its rows of this service, retried until done. */
export function consumeProjectPurged(events: EventStream, purger: ProjectPurger): Promise<EventConsumer> {
  return consumeProjectPurges(events, 'upload', (projectId) => purger.purge(projectId));
}
