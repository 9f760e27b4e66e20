import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryOutcome } from './event-delivery.ts';
import { OrderedDispatcher, type HeldEvent } from './ordered-dispatcher.ts';

/**
 * A model of the keyed consumer across replicas: the real OrderedDispatcher in each simulated
 * process, a simulated JetStream consumer behind them (ack wait, redelivery, naks with a delay,
 * max_ack_pending, lost acks) and a projector-like handler that applies a key's events strictly in
 * order and defers one that came early. Seeded scenarios kill and restart processes, lose acks and
 * notices, slow handlers down and let keep-alives lapse; the invariants are those of the read model:
 * per key every event applied once and in stream order, and every key current within a bound of the
 * last disruption.
 */

const ACK_WAIT_MS = 8_000;
const MAX_ACK_PENDING = 1024;
const PULL_EXPIRES_MS = 1_000;
/** Once the last disruption is over and a redelivery is due, every key must be current within this. */
const CATCH_UP_BOUND_MS = 10_000;
/** A stalled event loop: how long a process sends no keep-alive. */
const LAPSE_MS = ACK_WAIT_MS + 2_000;

interface StreamEvent {
  seq: number;
  key: string;
  /** Its place among its key's events, from 1. */
  ordinal: number;
  bytes: number;
}

interface PendingEntry {
  owner: number;
  deliveries: number;
  /** Redelivered once this passes unless acked or kept alive. */
  deadline: number;
}

/** The consumer's state on the server: what is pending with whom, and what is not delivered yet. */
class SimServer {
  readonly events: StreamEvent[];
  readonly pending = new Map<number, PendingEntry>();
  #next = 1;

  constructor(events: StreamEvent[]) {
    this.events = events;
  }

  /** Redeliveries first, lowest seq first, then new events while max_ack_pending allows. */
  pull(owner: number, max: number, now: number): { event: StreamEvent; deliveries: number }[] {
    const out: { event: StreamEvent; deliveries: number }[] = [];
    const due = [...this.pending.entries()].filter(([, entry]) => entry.deadline <= now).sort(([a], [b]) => a - b);
    for (const [seq, entry] of due) {
      if (out.length >= max) return out;
      entry.owner = owner;
      entry.deliveries += 1;
      entry.deadline = now + ACK_WAIT_MS;
      out.push({ event: this.events[seq - 1], deliveries: entry.deliveries });
    }
    while (out.length < max && this.#next <= this.events.length && this.pending.size < MAX_ACK_PENDING) {
      const event = this.events[this.#next - 1];
      this.#next += 1;
      this.pending.set(event.seq, { owner, deliveries: 1, deadline: now + ACK_WAIT_MS });
      out.push({ event, deliveries: 1 });
    }
    return out;
  }

  ack(seq: number): void {
    this.pending.delete(seq);
  }

  nak(seq: number, delayMs: number, now: number): void {
    const entry = this.pending.get(seq);
    if (entry) entry.deadline = now + delayMs;
  }

  working(seq: number, owner: number, now: number): void {
    const entry = this.pending.get(seq);
    // A delivery another process took since is not this one's to keep alive.
    if (entry && entry.owner === owner && entry.deadline > now) entry.deadline = now + ACK_WAIT_MS;
  }

  ackFloor(): number {
    let floor = this.#next - 1;
    for (const seq of this.pending.keys()) floor = Math.min(floor, seq - 1);
    return floor;
  }
}

/** The read model: per key, the ordinal applied last, and every violation seen. */
class SimReadModel {
  readonly applied = new Map<string, number>();
  readonly violations: string[] = [];

  /** What the projector does in one transaction: skip what is applied, apply the next, defer the rest. */
  apply(event: StreamEvent): 'done' | 'deferred' {
    const applied = this.applied.get(event.key) ?? 0;
    if (event.ordinal <= applied) return 'done';
    if (event.ordinal !== applied + 1) return 'deferred';
    this.applied.set(event.key, event.ordinal);
    return 'done';
  }

  current(events: StreamEvent[]): boolean {
    return events.every((event) => (this.applied.get(event.key) ?? 0) >= event.ordinal);
  }
}

interface Scenario {
  seed: number;
  keys: number;
  events: number;
  replicas: number;
  /** Per mille of acks lost on their way to the server. */
  ackLoss: number;
  handlerMs: [number, number];
  /** Processes killed (by index among the live ones) at a time, and kept down for a while before a new one starts. */
  kills: { atMs: number; replica: number; downMs: number }[];
  /** Times at which a process stops keeping its events alive for longer than the ack wait (a stalled event loop). */
  lapses: { atMs: number; replica: number }[];
  /** Per mille of the words that a key moved on lost on their way to a process. */
  noticeLoss: number;
  capacityBytes: number;
}

/** A small seeded generator, so a scenario replays exactly from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

interface SimHeld extends HeldEvent {
  event: StreamEvent;
  deliveries: number;
  loaded: boolean;
}

/** One process: a pull loop, a keep-alive and a dispatcher, as JetStreamConsumer wires them. */
class SimProcess {
  readonly id: number;
  alive = true;
  lapseUntil = 0;
  readonly dispatcher: OrderedDispatcher<SimHeld>;
  readonly #world: SimWorld;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #runningKeys = new Set<string>();

  constructor(id: number, world: SimWorld) {
    this.id = id;
    this.#world = world;
    this.dispatcher = new OrderedDispatcher<SimHeld>(
      {
        run: (held) => this.#run(held),
        settle: async (held) => {
          await sleep(1);
          if (!this.alive) return;
          if (world.rand() * 1000 < world.scenario.ackLoss) return;
          world.server.ack(held.seq);
          world.announce(held.key);
        },
        giveBack: (held) => {
          if (this.alive) world.server.nak(held.seq, 0, Date.now());
        },
        unload: (held) => ({ ...held, loaded: false }),
        load: async (held) => {
          await sleep(1);
          if (world.rand() < 0.02) throw new Error('stream read failed');
          return { ...held, loaded: true };
        },
        waiting: () => {},
      },
      {
        concurrency: 4,
        capacity: MAX_ACK_PENDING,
        capacityBytes: world.scenario.capacityBytes,
        waitingAfterMs: 10_000,
        retry: { initialMs: 1000, maxMs: 60_000 },
      },
    );
    this.#keepAlive = setInterval(() => {
      if (!this.alive || Date.now() < this.lapseUntil) return;
      for (const held of this.dispatcher.held()) world.server.working(held.seq, this.id, Date.now());
    }, ACK_WAIT_MS / 4);
    void this.#pull();
  }

  kill(): void {
    this.alive = false;
    clearInterval(this.#keepAlive);
  }

  async #pull(): Promise<void> {
    const world = this.#world;
    while (this.alive) {
      await this.dispatcher.whenRoom(1024 * 1024);
      if (!this.alive) return;
      const batch = world.server.pull(this.id, this.dispatcher.room(1024 * 1024), Date.now());
      for (const { event, deliveries } of batch) this.dispatcher.add({ key: event.key, seq: event.seq, bytes: event.bytes, event, deliveries, loaded: true });
      // A pull that found nothing waits on the server; one that found some asks again at once.
      await sleep(batch.length === 0 ? Math.min(PULL_EXPIRES_MS, 50) : 1);
    }
  }

  async #run(held: SimHeld): Promise<DeliveryOutcome> {
    const world = this.#world;
    if (this.#runningKeys.has(held.key)) world.model.violations.push(`process ${this.id} ran two events of ${held.key} at once`);
    this.#runningKeys.add(held.key);
    try {
      return await this.#handle(held);
    } finally {
      this.#runningKeys.delete(held.key);
    }
  }

  async #handle(held: SimHeld): Promise<DeliveryOutcome> {
    const world = this.#world;
    const [low, high] = world.scenario.handlerMs;
    await sleep(low + Math.floor(world.rand() * (high - low + 1)));
    // A killed process's transaction may or may not have committed; the transport never hears of it.
    if (!this.alive) return 'deferred';
    if (!held.loaded) world.model.violations.push(`ran ${held.seq} without its payload`);
    const outcome = world.model.apply(held.event);
    return outcome === 'done' ? 'handled' : 'deferred';
  }
}

class SimWorld {
  readonly scenario: Scenario;
  readonly rand: () => number;
  readonly server: SimServer;
  readonly model = new SimReadModel();
  readonly processes: SimProcess[] = [];
  #ids = 0;

  constructor(scenario: Scenario) {
    this.scenario = scenario;
    this.rand = random(scenario.seed);
    const ordinals = new Map<string, number>();
    const events: StreamEvent[] = [];
    for (let seq = 1; seq <= scenario.events; seq += 1) {
      const key = `k${Math.floor(this.rand() * scenario.keys)}`;
      const ordinal = (ordinals.get(key) ?? 0) + 1;
      ordinals.set(key, ordinal);
      events.push({ seq, key, ordinal, bytes: 200 + Math.floor(this.rand() * 2000) });
    }
    this.server = new SimServer(events);
  }

  start(): void {
    this.processes.push(new SimProcess(this.#ids++, this));
  }

  /** The word that a key moved on, to every live process; some of it is lost on the way. */
  announce(key: string): void {
    for (const process of this.live()) {
      if (this.rand() * 1000 < this.scenario.noticeLoss) continue;
      setTimeout(() => process.dispatcher.wake(key), 1);
    }
  }

  live(): SimProcess[] {
    return this.processes.filter((process) => process.alive);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs a scenario in simulated time, every event published at its start, and returns what broke. */
async function runScenario(scenario: Scenario): Promise<string[]> {
  const world = new SimWorld(scenario);
  const all = world.server.events;
  for (let i = 0; i < scenario.replicas; i += 1) world.start();
  /**
   * When the last disruption ended for the bound's purpose: a kill ends when it happens if another
   * process lives to take the events (after their ack wait), else when the replacement starts.
   */
  let disruptedUntil = 0;
  const disrupted = (untilMs: number) => (disruptedUntil = Math.max(disruptedUntil, untilMs));
  for (const kill of scenario.kills) {
    setTimeout(() => {
      const live = world.live();
      if (live.length === 0) return;
      live[kill.replica % live.length].kill();
      disrupted(live.length > 1 ? Date.now() : Date.now() + kill.downMs);
      setTimeout(() => world.start(), kill.downMs);
    }, kill.atMs);
  }
  for (const lapse of scenario.lapses) {
    setTimeout(() => {
      const live = world.live();
      if (live.length === 0) return;
      live[lapse.replica % live.length].lapseUntil = Date.now() + LAPSE_MS;
      disrupted(Date.now() + LAPSE_MS);
    }, lapse.atMs);
  }
  const lastFaultAt = Math.max(0, ...scenario.kills.map((k) => k.atMs), ...scenario.lapses.map((l) => l.atMs));
  // A key's events run one after another: its count of handlers, each with an ack, a wake and a load.
  const perKey = new Map<string, number>();
  for (const event of all) perKey.set(event.key, (perKey.get(event.key) ?? 0) + 1);
  const workMs = Math.max(...perKey.values()) * (2 * scenario.handlerMs[1] + 5);
  // Once the last disruption is over, a redelivery may still take an ack wait; then the bound.
  const deadline = () => disruptedUntil + ACK_WAIT_MS + CATCH_UP_BOUND_MS + workMs;
  const started = Date.now();
  disruptedUntil = started;
  while (!world.model.current(all) || Date.now() - started <= lastFaultAt) {
    if (Date.now() > Math.max(started + lastFaultAt, deadline())) break;
    await vi.advanceTimersByTimeAsync(100);
  }
  const problems = [...world.model.violations];
  if (!world.model.current(all)) {
    const behind = [...new Set(all.map((e) => e.key))].map(
      (key) => `${key} at ${world.model.applied.get(key) ?? 0}/${all.filter((e) => e.key === key).length}`,
    );
    problems.push(
      `not current ${Math.round((Date.now() - started) / 1000)} s in (disrupted until ${Math.round((disruptedUntil - started) / 1000)} s): ${behind.join(', ')}; server pending ${world.server.pending.size}`,
    );
  }
  for (const process of world.processes) process.kill();
  const stopped = Promise.all(world.processes.map((process) => process.dispatcher.stop()));
  await vi.advanceTimersByTimeAsync(1_000);
  await stopped;
  return problems;
}

const scenarios = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  keys: fc.integer({ min: 1, max: 6 }),
  events: fc.integer({ min: 5, max: 300 }),
  replicas: fc.integer({ min: 1, max: 3 }),
  ackLoss: fc.integer({ min: 0, max: 50 }),
  handlerMs: fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 200 })).map(([low, extra]) => [low, low + extra] as [number, number]),
  kills: fc.array(fc.record({ atMs: fc.integer({ min: 0, max: 20_000 }), replica: fc.nat(5), downMs: fc.integer({ min: 0, max: 25_000 }) }), { maxLength: 3 }),
  lapses: fc.array(fc.record({ atMs: fc.integer({ min: 0, max: 20_000 }), replica: fc.nat(5) }), { maxLength: 2 }),
  noticeLoss: fc.integer({ min: 0, max: 200 }),
  capacityBytes: fc.constantFrom(8 * 1024 * 1024, 8 * 1024),
});

describe('the keyed consumer across replicas (model)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('applies every key in order, once, and catches up within the bound after any interleaving of faults', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        vi.clearAllTimers();
        const problems = await runScenario(scenario);
        expect(problems).toEqual([]);
      }),
      { numRuns: 60 },
    );
  }, 600_000);
});
