import type { publicEvents } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { EventsRepository } from '../repo/events-repo.ts';

interface Waiting {
  event: publicEvents.PublicEvent;
  done: PromiseWithResolvers<void>;
}

/**
 * Records public events as the internal ones arrive: on the feed at the project's next position and,
 * in the same statement, queued for each subscribed webhook. Events that arrive while a statement is
 * in flight (other projects', other consumers') wait for it and then go together in the next one, so
 * a burst costs one durable commit instead of one each, and an event arriving alone goes at once.
 * `onRecorded` wakes the local feed reads; `onQueued` wakes the delivery worker, only when an event
 * queued a delivery: a project without webhooks costs the worker no look.
 */
export class EventRecorder {
  readonly #db: Database;
  readonly #events: EventsRepository;
  readonly #onRecorded: (projectId: string) => void;
  readonly #onQueued: () => void;
  #waiting: Waiting[] = [];
  #writing = false;

  constructor(deps: { db: Database; events: EventsRepository; onRecorded: (projectId: string) => void; onQueued: () => void }) {
    this.#db = deps.db;
    this.#events = deps.events;
    this.#onRecorded = deps.onRecorded;
    this.#onQueued = deps.onQueued;
  }

  /** Resolves once the event is recorded (or was before), so that its internal event may be acknowledged. */
  async record(event: publicEvents.PublicEvent | undefined): Promise<void> {
    if (event === undefined) return;
    const done = Promise.withResolvers<void>();
    this.#waiting.push({ event, done });
    if (!this.#writing) void this.#writeWaiting();
    await done.promise;
  }

  /** Writes what waits, then what arrived meanwhile, until nothing waits. Never rejects. */
  async #writeWaiting(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      try {
        await this.#write(batch.map((w) => w.event));
        for (const w of batch) w.done.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0].done.reject(error);
          continue;
        }
        // One event's failure fails only its own handler: each is written again alone.
        for (const w of batch) await this.#write([w.event]).then(w.done.resolve, w.done.reject);
      }
    }
    this.#writing = false;
  }

  async #write(events: publicEvents.PublicEvent[]): Promise<void> {
    const recorded = await this.#events.record(this.#db, events);
    let queued = false;
    for (const event of events) {
      const entry = recorded.get(event.id);
      if (entry === undefined) continue;
      this.#onRecorded(event.projectId);
      if (entry.queued > 0) queued = true;
    }
    if (queued) this.#onQueued();
  }
}
