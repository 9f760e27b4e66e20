import { commit } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import type { FenceService } from '../domain/fence-service.ts';

/**
 * Durable, shared by every replica: each commit.created part is handled once, retried until it
 * succeeds. Ordered by project, so one project's failing release never holds up another's (releases
 * are idempotent and need no order across replicas).
 */
export const LOCK_RELEASER = 'lock-releaser';

export function consumeCommitCreated(events: EventStream, service: FenceService): Promise<EventConsumer> {
  return events.consume(LOCK_RELEASER, commit.commitCreated, (event) => service.releaseCommitted(event), { orderedBy: (event) => event.projectId });
}
