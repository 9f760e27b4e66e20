import { DEFER_BACKOFF, retryDelayMs, type RetryBackoff } from './events.ts';
import type { DeliveryOutcome } from './event-delivery.ts';

/**
 * Bytes of events a consumer holds at once in one process, as received (parsed they take several
 * times that), on either transport: 16 commit parts of 512 KiB, however many parts a commit has.
 */
export const HELD_BYTES = 8 * 1024 * 1024;

/** A transport waiting for room for one more event of `eventBytes`. */
interface RoomWaiter {
  eventBytes: number;
  resolve: () => void;
}

/** An event a transport handed to the dispatcher, held until it is settled or given back. */
export interface HeldEvent {
  /** Events with one key run one at a time, lowest seq first; different keys run side by side. */
  readonly key: string;
  /** The stream sequence: the order within a key, and the event's identity. */
  readonly seq: number;
  /** Its size as the transport received it: what capacityBytes counts. */
  readonly bytes: number;
}

export interface DispatchHooks<T extends HeldEvent> {
  /** Runs the handler; never throws. `retried`: it failed or was deferred here before. */
  run(event: T, retried: boolean): Promise<DeliveryOutcome>;
  /** The handler succeeded: acknowledge the event. The key's next event waits for it; never throws. */
  settle(event: T): Promise<void>;
  /** Hands the event back, to be delivered again after delayMs to this process or another. */
  giveBack(event: T, delayMs: number): void;
}

export interface DispatchLimits<T extends HeldEvent> {
  /** Keys whose handlers run at once. */
  concurrency: number;
  /** Events held at once (queued, running, waiting to be retried): the transport takes no more. */
  capacity: number;
  /**
   * Bytes of events held at once, however few the events: a commit's parts are up to 1 MiB each,
   * several times that parsed. One event is taken when nothing is held, however large.
   */
  capacityBytes: number;
  /** Events a stalled key keeps; the ones after them are given back (parked) to free room for other keys. */
  stalledKeyHold: number;
  /** A key whose handler has run this long counts as stalled. */
  stallAfterMs: number;
  /** How long a parked event stays away. */
  parkDelayMs: (event: T) => number;
  /** Backoff of an event whose handler failed (a deferred one uses DEFER_BACKOFF). */
  retry: RetryBackoff;
}

interface Entry<T> {
  /** The newest delivery of the event: the one to acknowledge. */
  event: T;
  failures: number;
  deferrals: number;
}

interface Line<T> {
  readonly key: string;
  /** Held events not running, lowest seq first. */
  queue: Entry<T>[];
  running?: Entry<T>;
  /** Set while the head waits to be tried again. */
  retryTimer?: NodeJS.Timeout;
  /** The head (running or waiting) failed or was deferred and has not succeeded since, or has run longer than stallAfterMs. */
  stalled: boolean;
  stallTimer?: NodeJS.Timeout;
  /** Seqs given back while stalled: nothing after them runs before they return, or parkedUntil passes (another process took them). */
  parked: Set<number>;
  parkedUntil: number;
  parkTimer?: NodeJS.Timeout;
}

/**
 * Runs a consumer's handler over the events its transport holds: one key's events one after
 * another in seq order, different keys at once (up to `concurrency`), so one key's slow, failing or
 * deferred event never holds up another key's. A failed or deferred event stays here and is tried
 * again after its backoff, before its key's later events; an earlier event of the key arriving
 * meanwhile (a redelivery) runs at once, ahead of it. A stalled key keeps only `stalledKeyHold`
 * events and parks the rest, so its backlog cannot fill the room that other keys need.
 */
export class OrderedDispatcher<T extends HeldEvent> {
  readonly #hooks: DispatchHooks<T>;
  readonly #limits: DispatchLimits<T>;
  /** Insertion order is the order in which waiting keys get a free slot: a key whose event finished moves to the end. */
  readonly #lines = new Map<string, Line<T>>();
  readonly #runs = new Set<Promise<void>>();
  #held = 0;
  #heldBytes = 0;
  #running = 0;
  #roomWaiters: RoomWaiter[] = [];
  #stopped = false;

  constructor(hooks: DispatchHooks<T>, limits: DispatchLimits<T>) {
    if (limits.stalledKeyHold < 1) throw new Error('stalledKeyHold must be at least 1');
    this.#hooks = hooks;
    this.#limits = limits;
  }

  /**
   * How many more events the transport may hand over now if each may be as large as eventBytes: a
   * transport that knows an event's size asks with it, one that does not with the largest possible.
   */
  room(eventBytes: number): number {
    if (this.#stopped) return 0;
    const fit = Math.floor((this.#limits.capacityBytes - this.#heldBytes) / Math.max(1, eventBytes));
    return Math.max(0, Math.min(this.#limits.capacity - this.#held, this.#held === 0 ? Math.max(1, fit) : fit));
  }

  /** Resolves once there is room for an event of eventBytes, or the dispatcher stopped. */
  whenRoom(eventBytes: number): Promise<void> {
    if (this.room(eventBytes) > 0 || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push({ eventBytes, resolve }));
  }

  /** Every event held, for a transport that must keep them alive (JetStream's ack wait). */
  *held(): Iterable<T> {
    for (const line of this.#lines.values()) {
      if (line.running) yield line.running.event;
      for (const entry of line.queue) yield entry.event;
    }
  }

  add(event: T): void {
    if (this.#stopped) {
      this.#hooks.giveBack(event, 0);
      return;
    }
    const line = this.#lineFor(event.key);
    const same = line.running?.event.seq === event.seq ? line.running : line.queue.find((entry) => entry.event.seq === event.seq);
    if (same) {
      // Delivered again while held (its ack wait passed during an outage): one run, the newer delivery acknowledged.
      same.event = event;
      return;
    }
    line.parked.delete(event.seq);
    insertBySeq(line.queue, { event, failures: 0, deferrals: 0 });
    this.#hold(event, 1);
    if (line.retryTimer && line.queue[0].event === event) {
      // What the head was waiting for may be this very event: it runs now, and has not failed.
      clearTimeout(line.retryTimer);
      line.retryTimer = undefined;
      line.stalled = false;
    }
    this.#trim(line);
    this.#pump();
  }

  /** Gives back every queued event at once and resolves when the handlers running have finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const line of this.#lines.values()) {
      clearTimeout(line.retryTimer);
      clearTimeout(line.parkTimer);
      for (const entry of line.queue) {
        this.#hooks.giveBack(entry.event, 0);
        this.#hold(entry.event, -1);
      }
      line.queue = [];
    }
    this.#notifyRoom();
    await Promise.all(this.#runs);
  }

  #lineFor(key: string): Line<T> {
    let line = this.#lines.get(key);
    if (!line) {
      line = { key, queue: [], stalled: false, parked: new Set(), parkedUntil: 0 };
      this.#lines.set(key, line);
    }
    return line;
  }

  #pump(): void {
    if (this.#stopped) return;
    for (const line of [...this.#lines.values()]) {
      if (this.#running >= this.#limits.concurrency) return;
      if (this.#runnable(line)) this.#start(line);
    }
  }

  #runnable(line: Line<T>): boolean {
    if (line.running || line.retryTimer || line.queue.length === 0) return false;
    if (line.parked.size === 0) return true;
    if (Date.now() >= line.parkedUntil) {
      line.parked.clear();
      return true;
    }
    return line.queue[0].event.seq < Math.min(...line.parked);
  }

  #start(line: Line<T>): void {
    const entry = line.queue.shift();
    if (!entry) return;
    line.running = entry;
    this.#running += 1;
    line.stallTimer = setTimeout(() => {
      line.stalled = true;
      this.#trim(line);
    }, this.#limits.stallAfterMs);
    const run = this.#run(line, entry).finally(() => this.#runs.delete(run));
    this.#runs.add(run);
  }

  async #run(line: Line<T>, entry: Entry<T>): Promise<void> {
    const outcome = await this.#hooks.run(entry.event, entry.failures + entry.deferrals > 0);
    clearTimeout(line.stallTimer);
    if (outcome === 'handled') {
      await this.#hooks.settle(entry.event);
      line.stalled = false;
      this.#hold(entry.event, -1);
    } else if (this.#stopped) {
      this.#hooks.giveBack(entry.event, 0);
      this.#hold(entry.event, -1);
    } else {
      const delayMs = outcome === 'failed' ? retryDelayMs(this.#limits.retry, ++entry.failures) : retryDelayMs(DEFER_BACKOFF, ++entry.deferrals);
      line.stalled = true;
      insertBySeq(line.queue, entry);
      // Unless an earlier event of the key arrived while it ran: that one goes first, without waiting.
      if (line.queue[0] === entry) {
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
    this.#trim(line);
    this.#dropIfIdle(line);
    this.#notifyRoom();
    this.#pump();
  }

  /**
   * Parks a stalled key's latest events beyond what it may keep, and every one it has waiting once
   * stalled keys hold half the room, in events or in bytes: a process full of events that wait (for
   * one another replica holds, or one the server redelivers only after the ack wait) must keep room
   * to take what they wait for. A running event stays; it is parked with the rest if it fails again.
   */
  #trim(line: Line<T>): void {
    if (this.#stopped || !line.stalled) return;
    const running = line.running ? 1 : 0;
    const stalled = this.#stalledHeld();
    const crowded = stalled.events > this.#limits.capacity / 2 || stalled.bytes > this.#limits.capacityBytes / 2;
    const keep = crowded ? running : this.#limits.stalledKeyHold;
    if (line.queue.length + running <= keep) return;
    const parked = line.queue.splice(Math.max(0, keep - running));
    if (line.queue.length === 0) {
      clearTimeout(line.retryTimer);
      line.retryTimer = undefined;
      // What failed is gone; whatever of the key arrives next has not failed.
      line.stalled = running === 1;
    }
    for (const entry of parked) {
      const delayMs = this.#limits.parkDelayMs(entry.event);
      this.#hooks.giveBack(entry.event, delayMs);
      this.#hold(entry.event, -1);
      line.parked.add(entry.event.seq);
      line.parkedUntil = Math.max(line.parkedUntil, Date.now() + delayMs + this.#limits.stallAfterMs);
    }
    clearTimeout(line.parkTimer);
    line.parkTimer = setTimeout(() => {
      line.parkTimer = undefined;
      line.parked.clear();
      this.#dropIfIdle(line);
      this.#pump();
    }, line.parkedUntil - Date.now());
    this.#notifyRoom();
  }

  #stalledHeld(): { events: number; bytes: number } {
    const held = { events: 0, bytes: 0 };
    for (const line of this.#lines.values()) {
      if (!line.stalled) continue;
      for (const entry of line.running ? [line.running, ...line.queue] : line.queue) {
        held.events += 1;
        held.bytes += entry.event.bytes;
      }
    }
    return held;
  }

  /** count 1 when the event is taken, -1 when it is settled or given back. */
  #hold(event: T, count: 1 | -1): void {
    this.#held += count;
    this.#heldBytes += count * event.bytes;
  }

  #dropIfIdle(line: Line<T>): void {
    if (line.running || line.retryTimer || line.queue.length > 0 || line.parked.size > 0) return;
    clearTimeout(line.parkTimer);
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
