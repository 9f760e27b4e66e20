import type { publicEvents } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { EventsRepository } from '../repo/events-repo.ts';

/**
 * Records public events as the internal ones arrive: on the feed at the project's next position and,
 * in the same statement, queued for each subscribed webhook. `onRecorded` wakes the local feed reads
 * and the delivery worker.
 */
export class EventRecorder {
  readonly #db: Database;
  readonly #events: EventsRepository;
  readonly #onRecorded: (projectId: string) => void;

  constructor(deps: { db: Database; events: EventsRepository; onRecorded: (projectId: string) => void }) {
    this.#db = deps.db;
    this.#events = deps.events;
    this.#onRecorded = deps.onRecorded;
  }

  async record(event: publicEvents.PublicEvent | undefined): Promise<void> {
    if (event === undefined) return;
    const position = await this.#events.record(this.#db, event);
    if (position !== undefined) this.#onRecorded(event.projectId);
  }
}
