import { commit } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import type { FenceService } from '../domain/fence-service.ts';

/** Durable, shared by every replica: each commit.created part is handled once, retried until it succeeds. */
export const LOCK_RELEASER = 'lock-releaser';

export function consumeCommitCreated(events: EventStream, service: FenceService): Promise<EventConsumer> {
  return events.consume(LOCK_RELEASER, commit.commitCreated, (event) => service.releaseCommitted(event));
}
