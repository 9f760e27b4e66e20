import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { LocalEvents } from '@lode/bus';
import { STALL_AFTER_MS } from '../src/local-events.ts';
import { HELD_BYTES } from '../src/ordered-dispatcher.ts';
import { logger, openJetStreamEvents, randomNamespace, sleep, tick, tickEvent, TEST_RETRY_BACKOFF, type TickEvent } from './fixtures.ts';

const namespace = randomNamespace();
/** Only a hang guard, never a measurement. */
const GUARD_MS = 20_000;

/** An event of about `bytes` once encoded. */
const padded = (contract: TickEvent, n: number, bytes: number) => tick(contract, n, { n, note: 'x'.repeat(bytes) });

/** Whether the promise has settled, without waiting for it. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await sleep(50);
  return settled;
}

/** Opened after each test, so that a failed one does not leave a handler that close() waits for. */
const gates: PromiseWithResolvers<void>[] = [];

/** A handler that records each event and holds it until the test lets it go. */
function gatedHandler() {
  const handled: number[] = [];
  const started: number[] = [];
  const gate = Promise.withResolvers<void>();
  gates.push(gate);
  return {
    handled,
    started,
    handler: async ({ n }: { n: number }) => {
      started.push(n);
      await gate.promise;
      handled.push(n);
    },
    /** Lets every event through from now on. */
    open: () => gate.resolve(),
  };
}

afterAll(async () => {
  const { events, nc } = await openJetStreamEvents(namespace, 'memory-bounds-cleanup');
  await events.deleteStream();
  await nc.drain();
});

describe('LocalEvents backpressure (readyToPublish)', () => {
  let events: LocalEvents;
  afterEach(async () => {
    vi.useRealTimers();
    for (const gate of gates.splice(0)) gate.resolve();
    await events.close();
  });

  it('waits while a consumer has more than backlogBytes unhandled, and resumes once it has handled enough', async () => {
    events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF, backlogBytes: 1000 });
    const contract = tickEvent();
    const gate = gatedHandler();
    await events.consume('slow', contract, gate.handler);
    // Another subject's consumer is not behind on these events.
    await events.consume('other', tickEvent(), async () => {});
    // About 320 bytes each: three are within backlogBytes, four are not.
    for (const n of [0, 1, 2]) await events.publish(padded(contract, n, 300));
    await expect(events.readyToPublish()).resolves.toBeUndefined();
    for (const n of [3, 4]) await events.publish(padded(contract, n, 300));

    const ready = events.readyToPublish();
    expect(await isSettled(ready)).toBe(false);
    gate.open();
    await ready;
    await vi.waitFor(() => expect(gate.handled).toEqual([0, 1, 2, 3, 4]), { timeout: GUARD_MS });
  });

  it('never waits for a consumer that stopped, nor for events nobody consumes', async () => {
    events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF, backlogBytes: 1000 });
    const contract = tickEvent();
    for (const n of [0, 1, 2, 3, 4]) await events.publish(padded(tickEvent(), n, 300));
    await expect(events.readyToPublish()).resolves.toBeUndefined();

    const gate = gatedHandler();
    const consumer = await events.consume('stops', contract, gate.handler);
    for (const n of [0, 1, 2, 3, 4]) await events.publish(padded(contract, n, 300));
    const ready = events.readyToPublish();
    expect(await isSettled(ready)).toBe(false);
    const stopped = consumer.stop();
    await ready;
    gate.open();
    await stopped;
  });

  it('stops waiting for a consumer that has handled nothing for STALL_AFTER_MS: a failing handler cannot hold up the publisher', async () => {
    vi.useFakeTimers();
    events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF, backlogBytes: 1000 });
    const contract = tickEvent();
    await events.consume('failing', contract, async () => {
      throw new Error('always failing');
    });
    for (const n of [0, 1, 2, 3, 4]) await events.publish(padded(contract, n, 300));
    let ready = false;
    void events.readyToPublish().then(() => (ready = true));
    await vi.advanceTimersByTimeAsync(STALL_AFTER_MS - 1000);
    expect(ready).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ready).toBe(true);
    // Still stalled: the next publisher does not wait at all.
    await expect(events.readyToPublish()).resolves.toBeUndefined();
  });

  it('waits for a consumer that is moving, however long it was idle before its backlog came', async () => {
    vi.useFakeTimers();
    events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF, backlogBytes: 1000 });
    const contract = tickEvent();
    const gate = gatedHandler();
    await events.consume('idle', contract, gate.handler);
    await vi.advanceTimersByTimeAsync(10 * STALL_AFTER_MS);
    for (const n of [0, 1, 2, 3, 4]) await events.publish(padded(contract, n, 300));
    let ready = false;
    void events.readyToPublish().then(() => (ready = true));
    await vi.advanceTimersByTimeAsync(STALL_AFTER_MS / 2);
    expect(ready).toBe(false);
    gate.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(ready).toBe(true);
  });

  it('waits for a consumer created late to read the history it starts from', async () => {
    events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF, backlogBytes: 1000 });
    const contract = tickEvent();
    for (const n of [0, 1, 2, 3, 4]) await events.publish(padded(contract, n, 300));
    const gate = gatedHandler();
    await events.consume('late', contract, gate.handler);
    const ready = events.readyToPublish();
    expect(await isSettled(ready)).toBe(false);
    gate.open();
    await ready;
    await vi.waitFor(() => expect(gate.handled).toHaveLength(5), { timeout: GUARD_MS });
  });
});

describe('a JetStream consumer', () => {
  it('keeps every waiting large event held with its payload let go beyond its byte cap, and handles them all in order with their payloads read again', async () => {
    const { events, nc } = await openJetStreamEvents(namespace, 'memory-bounds');
    const gate = gatedHandler();
    const notes = new Map<number, number>();
    try {
      const contract = tickEvent();
      const eventBytes = 600_000;
      const count = 30;
      expect(count * eventBytes).toBeGreaterThan(HELD_BYTES);
      for (let n = 0; n < count; n += 1) await events.publish(padded(contract, n, eventBytes));
      // A key each, so nothing but the caps stops the process taking every one at once.
      const handler = async (event: { n: number; note?: string }) => {
        notes.set(event.n, event.note?.length ?? 0);
        await gate.handler(event);
      };
      await events.consume('held-bytes', contract, handler, { orderedBy: ({ n }) => String(n), concurrency: 1 });
      await vi.waitFor(() => expect(gate.started).toHaveLength(1), { timeout: GUARD_MS });

      // Nothing is handed back to wait on the server: the process holds them all, most without their payload.
      const jsm = await jetstreamManager(nc);
      await vi.waitFor(async () => expect((await jsm.consumers.info(events.streamName, 'held-bytes')).num_ack_pending).toBe(count), { timeout: GUARD_MS });

      gate.open();
      await vi.waitFor(() => expect(gate.handled).toHaveLength(count), { timeout: GUARD_MS });
      expect(gate.handled).toEqual(Array.from({ length: count }, (_, n) => n));
      expect([...notes.values()]).toEqual(Array.from({ length: count }, () => eventBytes));
    } finally {
      gate.open();
      await events.close();
      await nc.drain();
    }
  });
});
