import { DEFER_BACKOFF, retryDelayMs, type RetryBackoff } from './events.ts';
import type { DeliveryOutcome } from './event-delivery.ts';

/**
 * Bytes of event payloads a consumer keeps loaded at once in one process, as received (parsed they
 * take several times that), on either transport: 16 commit parts of 512 KiB. Events beyond it are
 * still held, but without their payload, which is read again when their turn comes.
 */
export const HELD_BYTES = 8 * 1024 * 1024;

/** A transport waiting for room for one more event of `eventBytes`. */
interface RoomWaiter {
  eventBytes: number;
  resolve: () => void;
}

/** An event a transport handed to the dispatcher, held until it is settled or handed back on stop. */
export interface HeldEvent {
  /** Events with one key run one at a time, lowest seq first; different keys run side by side. */
  readonly key: string;
  /** The stream sequence: the order within a key, and the event's identity. */
  readonly seq: number;
  /** Its payload's size as the transport received it: what capacityBytes counts while it is loaded. */
  readonly bytes: number;
}

export interface DispatchHooks<T extends HeldEvent> {
  /** Runs the handler on a loaded event; never throws. `retried`: it failed or was deferred here before. */
  run(event: T, retried: boolean): Promise<DeliveryOutcome>;
  /** The handler succeeded: acknowledge the event. The key's next event waits for it; never throws. */
  settle(event: T): Promise<void>;
  /** Hands the event back at once, for another process to take (on stop). */
  giveBack(event: T): void;
  /** The event without its payload: what it takes to acknowledge it, keep it alive and load it again. */
  unload(event: T): T;
  /** The unloaded event with its payload read again; undefined when the stream no longer has it. May reject. */
  load(event: T): Promise<T | undefined>;
  /** The key's earliest held event has waited this long without being handled; said once a wait. */
  waiting(event: T, waitedMs: number): void;
}

export interface DispatchLimits {
  /** Keys whose handlers run at once. */
  concurrency: number;
  /** Events held at once, loaded or not: the transport takes no more. */
  capacity: number;
  /**
   * Payload bytes kept loaded at once, however few the events: a commit's parts are up to 1 MiB
   * each, several times that parsed. Loaded payloads of events that wait are dropped down to half of
   * it, so there is always room to take the event they wait for.
   */
  capacityBytes: number;
  /** A key whose earliest event has waited this long is reported (DispatchHooks.waiting). */
  waitingAfterMs: number;
  /** Backoff of an event whose handler failed (a deferred one uses DEFER_BACKOFF, or runs when woken). */
  retry: RetryBackoff;
}

interface Entry<T> {
  /** The newest delivery of the event: the one to acknowledge. */
  event: T;
  loaded: boolean;
  failures: number;
  deferrals: number;
}

interface Line<T> {
  readonly key: string;
  /** Held events not running, lowest seq first. */
  queue: Entry<T>[];
  running?: Entry<T>;
  /** Set while the head waits to be tried again; `retryAfter` says why. */
  retryTimer?: NodeJS.Timeout;
  retryAfter?: 'failed' | 'deferred';
  /** The key moved on elsewhere while its head was running: a deferral then is tried again at once. */
  woken: boolean;
  /** When the key's current head first started, until an event of the key is handled. */
  waitingSince?: number;
  waitingTimer?: NodeJS.Timeout;
}

/**
 * Runs a consumer's handler over the events its transport holds: one key's events one after
 * another in seq order, different keys at once (up to `concurrency`), so one key's slow, failing or
 * deferred event never holds up another key's. A failed event stays here and is tried again after
 * its backoff, before its key's later events. A deferred one (it came before an event another
 * process holds) is tried again as soon as the key moves on anywhere (wake), or after a short
 * backoff should that word be lost; an earlier event of the key arriving meanwhile runs at once.
 *
 * Nothing is handed back while the process runs: an event handed back to the server is away for a
 * delay the server keeps, however soon its key needs it, and comes back behind whatever was handed
 * out meanwhile. Memory is bounded instead by dropping the payloads of waiting events, the latest
 * of each key first, and reading them again from the stream when their turn comes.
 */
export class OrderedDispatcher<T extends HeldEvent> {
  readonly #hooks: DispatchHooks<T>;
  readonly #limits: DispatchLimits;
  /** Insertion order is the order in which waiting keys get a free slot: a key whose event finished moves to the end. */
  readonly #lines = new Map<string, Line<T>>();
  readonly #runs = new Set<Promise<void>>();
  #held = 0;
  #loadedBytes = 0;
  #running = 0;
  #roomWaiters: RoomWaiter[] = [];
  #stopped = false;

  constructor(hooks: DispatchHooks<T>, limits: DispatchLimits) {
    this.#hooks = hooks;
    this.#limits = limits;
  }

  /**
   * How many more events the transport may hand over now if each may be as large as eventBytes: a
   * transport that knows an event's size asks with it, one that does not with the largest possible.
   * At least one while any may be held, so a process whose loaded bytes are all running still takes
   * the event its waiting keys need.
   */
  room(eventBytes: number): number {
    if (this.#stopped) return 0;
    const fit = Math.floor((this.#limits.capacityBytes - this.#loadedBytes) / Math.max(1, eventBytes));
    return Math.max(0, Math.min(this.#limits.capacity - this.#held, Math.max(1, fit)));
  }

  /** Resolves once there is room for an event of eventBytes, or the dispatcher stopped. */
  whenRoom(eventBytes: number): Promise<void> {
    if (this.room(eventBytes) > 0 || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push({ eventBytes, resolve }));
  }

  /** Every event held, loaded or not, for a transport that must keep them alive (JetStream's ack wait). */
  *held(): Iterable<T> {
    for (const line of this.#lines.values()) {
      if (line.running) yield line.running.event;
      for (const entry of line.queue) yield entry.event;
    }
  }

  add(event: T): void {
    if (this.#stopped) {
      this.#hooks.giveBack(event);
      return;
    }
    const line = this.#lineFor(event.key);
    const same = line.running?.event.seq === event.seq ? line.running : line.queue.find((entry) => entry.event.seq === event.seq);
    if (same) {
      // Delivered again while held (its ack wait passed during an outage): one run, the newer delivery acknowledged.
      if (same.loaded || same === line.running) {
        same.event = event;
      } else {
        same.event = this.#hooks.unload(event);
      }
      return;
    }
    insertBySeq(line.queue, { event, loaded: true, failures: 0, deferrals: 0 });
    this.#held += 1;
    this.#loadedBytes += event.bytes;
    if (line.retryTimer && line.queue[0].event === event) {
      // What the head was waiting for may be this very event: it runs now, and has not failed.
      clearTimeout(line.retryTimer);
      line.retryTimer = undefined;
    }
    this.#pump();
    this.#unloadWaiting();
  }

  /**
   * The key moved on in another process: its head, deferred because it came before what that process
   * held, is tried again now instead of after its backoff.
   */
  wake(key: string): void {
    const line = this.#lines.get(key);
    if (!line || this.#stopped) return;
    if (line.running) {
      line.woken = true;
      return;
    }
    if (line.retryTimer && line.retryAfter === 'deferred') {
      clearTimeout(line.retryTimer);
      line.retryTimer = undefined;
      this.#pump();
    }
  }

  /** Gives back every queued event at once and resolves when the handlers running have finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const line of this.#lines.values()) {
      clearTimeout(line.retryTimer);
      clearTimeout(line.waitingTimer);
      for (const entry of line.queue) this.#release(entry, 'give back');
      line.queue = [];
    }
    this.#notifyRoom();
    await Promise.all(this.#runs);
  }

  #lineFor(key: string): Line<T> {
    let line = this.#lines.get(key);
    if (!line) {
      line = { key, queue: [], woken: false };
      this.#lines.set(key, line);
    }
    return line;
  }

  #pump(): void {
    if (this.#stopped) return;
    for (const line of [...this.#lines.values()]) {
      if (this.#running >= this.#limits.concurrency) return;
      if (!line.running && !line.retryTimer && line.queue.length > 0) this.#start(line);
    }
  }

  #start(line: Line<T>): void {
    const entry = line.queue.shift();
    if (!entry) return;
    line.running = entry;
    line.woken = false;
    this.#running += 1;
    if (line.waitingSince === undefined) {
      const since = Date.now();
      line.waitingSince = since;
      line.waitingTimer = setTimeout(() => {
        const head = line.running ?? line.queue.at(0);
        if (head) this.#hooks.waiting(head.event, Date.now() - since);
      }, this.#limits.waitingAfterMs);
    }
    const run = this.#run(line, entry).finally(() => this.#runs.delete(run));
    this.#runs.add(run);
  }

  async #run(line: Line<T>, entry: Entry<T>): Promise<void> {
    const outcome = await this.#attempt(entry);
    if (outcome === 'handled' || outcome === 'gone') {
      await this.#hooks.settle(entry.event);
      this.#release(entry, 'settled');
      clearTimeout(line.waitingTimer);
      line.waitingTimer = undefined;
      line.waitingSince = undefined;
    } else if (this.#stopped) {
      this.#release(entry, 'give back');
    } else {
      insertBySeq(line.queue, entry);
      // Unless an earlier event of the key arrived while it ran: that one goes first, without waiting.
      if (line.queue[0] === entry) {
        const delayMs =
          outcome === 'failed' ? retryDelayMs(this.#limits.retry, ++entry.failures) : line.woken ? 0 : retryDelayMs(DEFER_BACKOFF, ++entry.deferrals);
        line.retryAfter = outcome;
        line.retryTimer = setTimeout(() => {
          line.retryTimer = undefined;
          this.#pump();
        }, delayMs);
      }
    }
    line.running = undefined;
    this.#running -= 1;
    // Behind every key that waited meanwhile.
    this.#lines.delete(line.key);
    this.#lines.set(line.key, line);
    this.#dropIfIdle(line);
    this.#pump();
    this.#unloadWaiting();
    this.#notifyRoom();
  }

  /** Loads the event if its payload was dropped, then runs it; 'gone' when the stream no longer has it. */
  async #attempt(entry: Entry<T>): Promise<DeliveryOutcome | 'gone'> {
    if (!entry.loaded) {
      let loaded: T | undefined;
      try {
        loaded = await this.#hooks.load(entry.event);
      } catch {
        return 'failed';
      }
      if (loaded === undefined) return 'gone';
      entry.event = loaded;
      entry.loaded = true;
      this.#loadedBytes += loaded.bytes;
    }
    return this.#hooks.run(entry.event, entry.failures + entry.deferrals > 0);
  }

  #release(entry: Entry<T>, how: 'settled' | 'give back'): void {
    if (how === 'give back') this.#hooks.giveBack(entry.event);
    this.#held -= 1;
    if (entry.loaded) this.#loadedBytes -= entry.event.bytes;
  }

  /**
   * Drops payloads of queued events down to half of capacityBytes, furthest from running first (the
   * last of the longest queues), so the transport always has room for the event they wait for.
   */
  #unloadWaiting(): void {
    const target = this.#limits.capacityBytes / 2;
    if (this.#loadedBytes <= target) return;
    const candidates: { entry: Entry<T>; place: number }[] = [];
    for (const line of this.#lines.values()) {
      line.queue.forEach((entry, place) => {
        if (entry.loaded) candidates.push({ entry, place });
      });
    }
    candidates.sort((a, b) => b.place - a.place || b.entry.event.seq - a.entry.event.seq);
    for (const { entry } of candidates) {
      if (this.#loadedBytes <= target) return;
      this.#loadedBytes -= entry.event.bytes;
      entry.event = this.#hooks.unload(entry.event);
      entry.loaded = false;
    }
  }

  #dropIfIdle(line: Line<T>): void {
    if (line.running || line.retryTimer || line.queue.length > 0) return;
    clearTimeout(line.waitingTimer);
    this.#lines.delete(line.key);
  }

  #notifyRoom(): void {
    const ready: RoomWaiter[] = [];
    const waiting: RoomWaiter[] = [];
    for (const waiter of this.#roomWaiters) (this.#stopped || this.room(waiter.eventBytes) > 0 ? ready : waiting).push(waiter);
    if (ready.length === 0) return;
    this.#roomWaiters = waiting;
    for (const waiter of ready) waiter.resolve();
  }
}

/** Keeps the queue ordered by seq; new events almost always belong at the end. */
function insertBySeq<T extends HeldEvent>(queue: Entry<T>[], entry: Entry<T>): void {
  let at = queue.length;
  while (at > 0 && queue[at - 1].event.seq > entry.event.seq) at -= 1;
  queue.splice(at, 0, entry);
}
