import { describe, expect, it, vi } from 'vitest';
import type { DeliveryOutcome } from './event-delivery.ts';
import { OrderedDispatcher, type DispatchLimits, type HeldEvent } from './ordered-dispatcher.ts';

interface TestEvent extends HeldEvent {
  /** Which delivery of the event this is, to tell a redelivery from the first. */
  delivery: number;
}

/** A dispatcher whose handler runs are resolved by the test, one promise per run. */
function harness(limits: Partial<DispatchLimits<TestEvent>> = {}) {
  const runs: { event: TestEvent; retried: boolean; finish: (outcome: DeliveryOutcome) => void }[] = [];
  const settled: string[] = [];
  const givenBack: { id: string; delayMs: number }[] = [];
  const dispatcher = new OrderedDispatcher<TestEvent>(
    {
      run: (event, retried) => new Promise((finish) => runs.push({ event, retried, finish })),
      settle: async (event) => {
        settled.push(id(event));
      },
      giveBack: (event, delayMs) => givenBack.push({ id: id(event), delayMs }),
    },
    { concurrency: 2, capacity: 10, capacityBytes: 1_000_000, stalledKeyHold: 2, stallAfterMs: 60_000, parkDelayMs: () => 5_000, retry: { initialMs: 1000, maxMs: 1000 }, ...limits },
  );
  const ev = (key: string, seq: number, delivery = 1, bytes = 100): TestEvent => ({ key, seq, delivery, bytes });
  /** Keys and seqs of the runs started so far, e.g. "a1". */
  const started = () => runs.map((r) => id(r.event));
  const finish = async (runId: string, outcome: DeliveryOutcome = 'handled') => {
    const run = runs.find((r) => id(r.event) === runId && !('done' in r));
    if (!run) throw new Error(`no run of ${runId} waiting; started: ${started().join(' ')}`);
    Object.assign(run, { done: true });
    run.finish(outcome);
    await settle();
  };
  return { dispatcher, runs, settled, givenBack, ev, started, finish };
}

const id = (event: TestEvent) => `${event.key}${event.seq}`;
/** Lets the dispatcher's promise chains finish; microtasks only, so it works under fake timers too. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}

describe('OrderedDispatcher', () => {
  it("runs one key's events one after another in seq order and other keys beside them, up to the concurrency", async () => {
    const h = harness();
    for (const [key, seq] of [['a', 1], ['a', 2], ['b', 3], ['c', 4], ['a', 5]] as const) h.dispatcher.add(h.ev(key, seq));
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

  it('parks the later events of a stalled key so it cannot take the room other keys need, and runs nothing past them until they return', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ capacity: 10, concurrency: 1 });
      h.dispatcher.add(h.ev('a', 1));
      await h.finish('a1', 'failed');
      // a is stalled: it keeps a1 and a2 (stalledKeyHold 2) and parks a3 and a4.
      for (const seq of [2, 3, 4]) h.dispatcher.add(h.ev('a', seq));
      expect(h.givenBack).toEqual([
        { id: 'a3', delayMs: 5000 },
        { id: 'a4', delayMs: 5000 },
      ]);
      expect(h.dispatcher.room(0)).toBe(8);
      h.dispatcher.add(h.ev('b', 5));
      expect(h.started()).toEqual(['a1', 'b5']);
      await h.finish('b5');

      await vi.advanceTimersByTimeAsync(1000);
      await h.finish('a1');
      await h.finish('a2');
      // a6 arrived before the parked a3 and a4 came back: it waits for them.
      h.dispatcher.add(h.ev('a', 6));
      expect(h.started()).toEqual(['a1', 'b5', 'a1', 'a2']);
      h.dispatcher.add(h.ev('a', 4, 2));
      h.dispatcher.add(h.ev('a', 3, 2));
      for (const next of ['a3', 'a4', 'a6']) await h.finish(next);
      expect(h.settled).toEqual(['b5', 'a1', 'a2', 'a3', 'a4', 'a6']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('parks every waiting event of a stalled key once stalled keys hold half its room, so a process full of deferred events still takes what they wait for', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ capacity: 4, concurrency: 4 });
      for (const [key, seq] of [['a', 2], ['b', 4], ['c', 6]] as const) {
        h.dispatcher.add(h.ev(key, seq));
        await h.finish(`${key}${seq}`, 'deferred');
      }
      // a2 and b4 wait, holding half the room; c6, the third, went back.
      expect(h.givenBack).toEqual([{ id: 'c6', delayMs: 5000 }]);
      expect(h.dispatcher.room(0)).toBe(2);
      // What the waiting ones wait for arrives, runs at once, and then the waiting one.
      h.dispatcher.add(h.ev('a', 1));
      h.dispatcher.add(h.ev('c', 5));
      await h.finish('a1');
      await h.finish('c5');
      await h.finish('a2');
      expect(h.settled).toEqual(['a1', 'c5', 'a2']);
      // c6 is away until its park delay passes.
      expect(h.started().filter((run) => run === 'c6')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops waiting for parked events another process took', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ concurrency: 1, stalledKeyHold: 1, stallAfterMs: 1000 });
      h.dispatcher.add(h.ev('a', 1));
      await h.finish('a1', 'failed');
      h.dispatcher.add(h.ev('a', 2));
      expect(h.givenBack.map((g) => g.id)).toEqual(['a2']);
      await vi.advanceTimersByTimeAsync(1000);
      await h.finish('a1');
      h.dispatcher.add(h.ev('a', 3));
      expect(h.started()).toEqual(['a1', 'a1']);
      // a2 went elsewhere: after its park delay and the stall time, a3 runs.
      await vi.advanceTimersByTimeAsync(6000);
      expect(h.started()).toEqual(['a1', 'a1', 'a3']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts a handler running longer than stallAfterMs as stalled', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ concurrency: 1, stalledKeyHold: 1, stallAfterMs: 1000 });
      h.dispatcher.add(h.ev('a', 1));
      h.dispatcher.add(h.ev('a', 2));
      expect(h.givenBack).toEqual([]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(h.givenBack.map((g) => g.id)).toEqual(['a2']);
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

  it('holds no more bytes than capacityBytes, and one event however large when it holds nothing', async () => {
    const h = harness({ capacity: 10, capacityBytes: 1000, concurrency: 1 });
    // Nothing held: room for one event of 5,000 bytes, for as many as fit of smaller ones.
    expect(h.dispatcher.room(5000)).toBe(1);
    expect(h.dispatcher.room(300)).toBe(3);
    h.dispatcher.add(h.ev('a', 1, 1, 600));
    expect(h.dispatcher.room(300)).toBe(1);
    h.dispatcher.add(h.ev('a', 2, 1, 300));
    expect(h.dispatcher.room(300)).toBe(0);
    expect(h.dispatcher.room(100)).toBe(1);
    let roomy = false;
    void h.dispatcher.whenRoom(300).then(() => (roomy = true));
    await settle();
    expect(roomy).toBe(false);
    await h.finish('a1');
    expect(roomy).toBe(true);
    expect(h.dispatcher.room(300)).toBe(2);
  });

  it('parks every waiting event of a stalled key once stalled keys hold half its bytes', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ capacity: 100, capacityBytes: 1000, concurrency: 4 });
      h.dispatcher.add(h.ev('a', 2, 1, 400));
      await h.finish('a2', 'deferred');
      h.dispatcher.add(h.ev('b', 4, 1, 200));
      await h.finish('b4', 'deferred');
      // a2 and b4 wait with 600 bytes, over half of 1,000: b4, the one that made it so, went back.
      expect(h.givenBack).toEqual([{ id: 'b4', delayMs: 5000 }]);
      expect(h.dispatcher.room(100)).toBe(6);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stop() gives back every queued event at once and waits for the running handlers', async () => {
    const h = harness({ concurrency: 1 });
    h.dispatcher.add(h.ev('a', 1));
    h.dispatcher.add(h.ev('a', 2));
    h.dispatcher.add(h.ev('b', 3));
    let stopped = false;
    const stopping = h.dispatcher.stop().then(() => (stopped = true));
    expect(h.givenBack).toEqual([
      { id: 'a2', delayMs: 0 },
      { id: 'b3', delayMs: 0 },
    ]);
    await settle();
    expect(stopped).toBe(false);
    await h.finish('a1');
    await stopping;
    expect(h.settled).toEqual(['a1']);
    h.dispatcher.add(h.ev('c', 4));
    expect(h.givenBack.at(-1)).toEqual({ id: 'c4', delayMs: 0 });
  });
});
