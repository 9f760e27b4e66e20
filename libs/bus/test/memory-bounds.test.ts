import { afterAll, describe, expect, it, vi } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { openJetStreamEvents, randomNamespace, sleep, tick, tickEvent, type TickEvent } from './fixtures.ts';

const namespace = randomNamespace();
const MIB = 1024 * 1024;
/** What a JetStream consumer holds of its events at most, as received (HELD_BYTES in jetstream-consumer.ts). */
const HELD_BYTES = 8 * MIB;
/** Only a hang guard, never a measurement. */
const GUARD_MS = 20_000;

/** An event of about `bytes` once encoded. */
const padded = (contract: TickEvent, n: number, bytes: number) => tick(contract, n, { n, note: 'x'.repeat(bytes) });

/** A handler that records each event and holds it until the test lets it go. */
function gatedHandler() {
  const handled: number[] = [];
  const started: number[] = [];
  const gate = Promise.withResolvers<void>();
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

describe('a JetStream consumer', () => {
  it('holds no more than its byte cap of large events at once, however many are waiting, and then handles them all in order', async () => {
    const { events, nc } = await openJetStreamEvents(namespace, 'memory-bounds');
    const gate = gatedHandler();
    try {
      const contract = tickEvent();
      const eventBytes = 600_000;
      const count = 30;
      for (let n = 0; n < count; n += 1) await events.publish(padded(contract, n, eventBytes));
      // A key each, so nothing but the caps stops the process taking every one at once.
      await events.consume('held-bytes', contract, gate.handler, { orderedBy: ({ n }) => String(n), concurrency: 1 });
      await vi.waitFor(() => expect(gate.started).toHaveLength(1), { timeout: GUARD_MS });

      const jsm = await jetstreamManager(nc);
      const pending: number[] = [];
      for (let sample = 0; sample < 20; sample += 1) {
        pending.push((await jsm.consumers.info(events.streamName, 'held-bytes')).num_ack_pending);
        await sleep(50);
      }
      expect(Math.max(...pending) * eventBytes).toBeLessThanOrEqual(HELD_BYTES);
      expect(Math.max(...pending)).toBeGreaterThan(1);

      gate.open();
      await vi.waitFor(() => expect(gate.handled).toHaveLength(count), { timeout: GUARD_MS });
      expect(gate.handled).toEqual(Array.from({ length: count }, (_, n) => n));
    } finally {
      gate.open();
      await events.close();
      await nc.drain();
    }
  });
});
