import type { ParsedRequestOf, ReplyOf, webhooks } from '@lode/contracts';
import type { Database } from '@lode/db';
import type { EventsRepository } from '../repo/events-repo.ts';
import type { FeedSignal } from './feed-signal.ts';

/** How often a waiting read looks again for events another replica recorded. */
const RECHECK_MS = 500;

type ReadFeed = ParsedRequestOf<typeof webhooks.readFeed>;

/** The live feed's reads (docs/api.md, Live feed): a page of the project's events, waiting for one if asked. */
export class FeedService {
  readonly #db: Database;
  readonly #events: EventsRepository;
  readonly #signal: FeedSignal;

  constructor(deps: { db: Database; events: EventsRepository; signal: FeedSignal }) {
    this.#db = deps.db;
    this.#events = deps.events;
    this.#signal = deps.signal;
  }

  async read({ actor, after, types, limit, waitMs }: ReadFeed): Promise<ReplyOf<typeof webhooks.readFeed>> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const page = await this.#events.page(this.#db, actor.projectId, after ?? Number.MAX_SAFE_INTEGER, types, limit);
      if (after === null) return { events: [], reset: false, next: page.head };
      // A position past the head is not this project's; one before the oldest kept lost events in between.
      const lost = after > page.head || (after < page.head && (page.oldest === null || after < page.oldest - 1));
      if (lost) return { events: [], reset: true, next: page.head };
      const next = page.events.length === limit ? page.events[page.events.length - 1].position : page.head;
      if (page.events.length > 0 || next > after || Date.now() >= deadline) return { events: page.events, reset: false, next };
      await this.#signal.wait(actor.projectId, Math.min(RECHECK_MS, deadline - Date.now()));
    }
  }
}
