import { describe, expect, it, vi } from 'vitest';
import type { DeliveryOutcome } from './event-delivery.ts';
import { OrderedDispatcher, type DispatchLimits, type HeldEvent } from './ordered-dispatcher.ts';

interface TestEvent extends HeldEvent {
  /** Which delivery of the event this is, to tell a redelivery from the first. */
  delivery: number;
  /** False once the dispatcher let its payload go. */
  loaded: boolean;
}

/** A dispatcher whose handler runs are resolved by the test, one promise per run. */
function harness(limits: Partial<DispatchLimits> = {}) {
  const runs: { event: TestEvent; retried: boolean; finish: (outcome: DeliveryOutcome) => void }[] = [];
  const settled: string[] = [];
  const givenBack: string[] = [];
  const unloaded: string[] = [];
  const loads: { id: string; answer: (loaded: 'loaded' | 'gone' | 'failed') => void }[] = [];
  const waited: { id: string; waitedMs: number }[] = [];
  const dispatcher = new OrderedDispatcher<TestEvent>(
    {
      run: (event, retried) => {
        if (!event.loaded) throw new Error(`${id(event)} ran without its payload`);
        return new Promise((finish) => runs.push({ event, retried, finish }));
      },
      settle: async (event) => {
        settled.push(id(event));
      },
      giveBack: (event) => givenBack.push(id(event)),
      unload: (event) => {
        unloaded.push(id(event));
        return { ...event, loaded: false };
      },
      load: (event) =>
        new Promise((resolve, reject) =>
          loads.push({
            id: id(event),
            answer: (how) => (how === 'failed' ? reject(new Error('stream unreachable')) : resolve(how === 'gone' ? undefined : { ...event, loaded: true })),
          }),
        ),
      waiting: (event, waitedMs) => waited.push({ id: id(event), waitedMs }),
    },
    { concurrency: 2, capacity: 10, capacityBytes: 1_000_000, waitingAfterMs: 10_000, retry: { initialMs: 1000, maxMs: 1000 }, ...limits },
  );
  const ev = (key: string, seq: number, delivery = 1, bytes = 100): TestEvent => ({ key, seq, delivery, bytes, loaded: true });
  /** Keys and seqs of the runs started so far, e.g. "a1". */
  const started = () => runs.map((r) => id(r.event));
  const finish = async (runId: string, outcome: DeliveryOutcome = 'handled') => {
    const run = runs.find((r) => id(r.event) === runId && !('done' in r));
    if (!run) throw new Error(`no run of ${runId} waiting; started: ${started().join(' ')}`);
    Object.assign(run, { done: true });
    run.finish(outcome);
    await settle();
  };
  return { dispatcher, runs, settled, givenBack, unloaded, loads, waited, ev, started, finish };
}

const id = (event: TestEvent) => `${event.key}${event.seq}`;
/** Lets the dispatcher's promise chains finish; microtasks only, so it works under fake timers too. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}

describe('OrderedDispatcher', () => {
  it("runs one key's events one after another in seq order and other keys beside them, up to the concurrency", async () => {
    const h = harness();
    for (const [key, seq] of [
      ['a', 1],
      ['a', 2],
      ['b', 3],
      ['c', 4],
      ['a', 5],
    ] as const)
      h.dispatcher.add(h.ev(key, seq));
    // a1 and b3 take the two slots; c4 waits for a slot, a2 for a1.
    expect(h.started()).toEqual(['a1', 'b3']);
    await h.finish('a1');
    expect(h.started()).toEqual(['a1', 'b3', 'c4']);
    await h.finish('b3');
    await settle();
    expect(h.started()).toEqual(['a1', 'b3', 'c4', 'a2']);
    await h.finish('a2');
    await h.finish('c4');
    await h.finish('a5');
    expect(h.settled).toEqual(['a1', 'b3', 'a2', 'c4', 'a5']);
    expect(h.dispatcher.room(0)).toBe(10);
  });

  it('inserts an event that arrives late in its seq place, so a key still runs in stream order', async () => {
    const h = harness({ concurrency: 1 });
    h.dispatcher.add(h.ev('a', 1));
    h.dispatcher.add(h.ev('a', 4));
    h.dispatcher.add(h.ev('a', 2));
    for (const next of ['a1', 'a2', 'a4']) await h.finish(next);
    expect(h.settled).toEqual(['a1', 'a2', 'a4']);
  });

  it("retries a failed event after the backoff before its key's next, while other keys go on", async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      h.dispatcher.add(h.ev('a', 1));
      h.dispatcher.add(h.ev('a', 2));
      h.dispatcher.add(h.ev('b', 3));
      await h.finish('a1', 'failed');
      await h.finish('b3');
      h.dispatcher.add(h.ev('b', 4));
      await h.finish('b4');
      expect(h.started()).toEqual(['a1', 'b3', 'b4']);
      await vi.advanceTimersByTimeAsync(1000);
      expect(h.runs.at(-1)).toMatchObject({ event: { key: 'a', seq: 1 }, retried: true });
      await h.finish('a1');
      await h.finish('a2');
      expect(h.settled).toEqual(['b3', 'b4', 'a1', 'a2']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs an earlier event of the key at once when it arrives while a deferred one waits, then the deferred one', async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      h.dispatcher.add(h.ev('a', 5));
      await h.finish('a5', 'deferred');
      // Waiting out its backoff; the redelivered a4 does not wait for it.
      h.dispatcher.add(h.ev('a', 4));
      expect(h.started()).toEqual(['a5', 'a4']);
      await h.finish('a4');
      expect(h.started()).toEqual(['a5', 'a4', 'a5']);
      await h.finish('a5');
      expect(h.settled).toEqual(['a4', 'a5']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs a second delivery of an event it holds once, and acknowledges the newer delivery', async () => {
    const h = harness({ concurrency: 1 });
    const settledDeliveries: number[] = [];
    h.dispatcher.add(h.ev('a', 1));
    h.dispatcher.add(h.ev('a', 2));
    h.dispatcher.add(h.ev('a', 1, 2));
    h.dispatcher.add(h.ev('a', 2, 2));
    for (const held of h.dispatcher.held()) settledDeliveries.push(held.delivery);
    expect(settledDeliveries).toEqual([2, 2]);
    await h.finish('a1');
    await h.finish('a2');
    expect(h.started()).toEqual(['a1', 'a2']);
  });

  it('tries a deferred event again as soon as its key moves on elsewhere, not after its backoff', async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      h.dispatcher.add(h.ev('a', 5));
      await h.finish('a5', 'deferred');
      expect(h.started()).toEqual(['a5']);
      h.dispatcher.wake('b');
      h.dispatcher.wake('a');
      expect(h.started()).toEqual(['a5', 'a5']);
      expect(h.runs.at(-1)?.retried).toBe(true);
      // Woken while it runs: what it waited for may have landed meanwhile, so a deferral retries at once.
      h.dispatcher.wake('a');
      await h.finish('a5', 'deferred');
      await vi.advanceTimersByTimeAsync(0);
      expect(h.started()).toEqual(['a5', 'a5', 'a5']);
      await h.finish('a5');
      expect(h.settled).toEqual(['a5']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves a failed event to its backoff when woken: a failure is not waiting for another process', async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      h.dispatcher.add(h.ev('a', 1));
      await h.finish('a1', 'failed');
      h.dispatcher.wake('a');
      expect(h.started()).toEqual(['a1']);
      await vi.advanceTimersByTimeAsync(1000);
      expect(h.started()).toEqual(['a1', 'a1']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands nothing back while it runs, however long a key waits: a waiting key keeps its events in order', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ concurrency: 1, capacity: 100 });
      h.dispatcher.add(h.ev('a', 2));
      await h.finish('a2', 'deferred');
      for (let seq = 3; seq < 40; seq += 1) h.dispatcher.add(h.ev('a', seq));
      await vi.advanceTimersByTimeAsync(120_000);
      expect(h.givenBack).toEqual([]);
      // What it waited for arrives while a2 is being tried again: it runs next, then the rest in order.
      h.dispatcher.add(h.ev('a', 1));
      await h.finish('a2', 'deferred');
      for (let seq = 1; seq < 40; seq += 1) await h.finish(`a${seq}`);
      expect(h.settled).toEqual(Array.from({ length: 39 }, (_, i) => `a${i + 1}`));
    } finally {
      vi.useRealTimers();
    }
  });

  it("lets go of waiting events' payloads beyond half its bytes, latest first, and reads them again before they run", async () => {
    const h = harness({ capacity: 100, capacityBytes: 1000, concurrency: 1 });
    h.dispatcher.add(h.ev('a', 1, 1, 300));
    for (let seq = 2; seq <= 5; seq += 1) h.dispatcher.add(h.ev('a', seq, 1, 100));
    // a1 runs with 300 bytes; a2 and a3 keep theirs (500 in all), a4 and a5 let theirs go.
    expect(h.unloaded).toEqual(['a4', 'a5']);
    // Loaded bytes never stop it taking one more event: what the waiting ones wait for may be next.
    expect(h.dispatcher.room(1000)).toBe(1);
    await h.finish('a1');
    await h.finish('a2');
    await h.finish('a3');
    expect(h.loads.map((l) => l.id)).toEqual(['a4']);
    expect(h.started()).toEqual(['a1', 'a2', 'a3']);
    h.loads[0].answer('loaded');
    await settle();
    expect(h.started()).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('settles an event the stream no longer has, and retries one whose payload could not be read', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ capacity: 100, capacityBytes: 100, concurrency: 1 });
      h.dispatcher.add(h.ev('a', 1, 1, 100));
      h.dispatcher.add(h.ev('a', 2, 1, 100));
      h.dispatcher.add(h.ev('a', 3, 1, 100));
      await h.finish('a1');
      h.loads[0].answer('gone');
      await settle();
      expect(h.settled).toEqual(['a1', 'a2']);
      h.loads[1].answer('failed');
      await settle();
      expect(h.settled).toEqual(['a1', 'a2']);
      await vi.advanceTimersByTimeAsync(1000);
      h.loads[2].answer('loaded');
      await settle();
      await h.finish('a3');
      expect(h.settled).toEqual(['a1', 'a2', 'a3']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says once when a key has waited longer than waitingAfterMs, and again only after it moved', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ waitingAfterMs: 10_000 });
      h.dispatcher.add(h.ev('a', 2));
      await h.finish('a2', 'deferred');
      await vi.advanceTimersByTimeAsync(30_000);
      expect(h.waited).toEqual([{ id: 'a2', waitedMs: 10_000 }]);
      h.dispatcher.add(h.ev('a', 1));
      await h.finish('a2', 'deferred');
      await h.finish('a1');
      await h.finish('a2');
      h.dispatcher.add(h.ev('a', 4));
      await h.finish('a4', 'deferred');
      await vi.advanceTimersByTimeAsync(5_000);
      h.dispatcher.add(h.ev('a', 3));
      await h.finish('a4', 'deferred');
      await h.finish('a3');
      await h.finish('a4');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(h.waited).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes no more than its capacity and says when there is room again', async () => {
    const h = harness({ capacity: 2 });
    h.dispatcher.add(h.ev('a', 1));
    h.dispatcher.add(h.ev('b', 2));
    expect(h.dispatcher.room(0)).toBe(0);
    let roomy = false;
    void h.dispatcher.whenRoom(0).then(() => (roomy = true));
    await settle();
    expect(roomy).toBe(false);
    await h.finish('a1');
    await settle();
    expect(roomy).toBe(true);
  });

  it('stop() gives back every queued event at once and waits for the running handlers', async () => {
    const h = harness({ concurrency: 1 });
    h.dispatcher.add(h.ev('a', 1));
    h.dispatcher.add(h.ev('a', 2));
    h.dispatcher.add(h.ev('b', 3));
    let stopped = false;
    const stopping = h.dispatcher.stop().then(() => (stopped = true));
    expect(h.givenBack).toEqual(['a2', 'b3']);
    await settle();
    expect(stopped).toBe(false);
    await h.finish('a1');
    await stopping;
    expect(h.settled).toEqual(['a1']);
    h.dispatcher.add(h.ev('c', 4));
    expect(h.givenBack.at(-1)).toEqual('c4');
  });
});
