import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { startPrivateNats, type PrivateNats } from '@lode/testkit';
import { connectNats, JetStreamEvents, type EventStream } from '@lode/bus';
import {
  jetStreamHarness,
  localEventsHarness,
  logger,
  NATS_URL,
  openJetStreamEvents,
  randomNamespace,
  tick,
  tickEvent,
  TEST_RETRY_BACKOFF,
  type EventsHarness,
  type TickEvent,
} from './fixtures.ts';

const namespace = randomNamespace();
/** The ordering key rides in the tick's note. */
const byNote = { orderedBy: (event: { note: string }) => event.note };
/** Far below the 30 s ack wait a lost delivery cost before; only a hang guard, never a measurement. */
const GUARD_MS = 20_000;

async function publishKeyed(events: EventStream, contract: TickEvent, keyed: [key: string, n: number][]): Promise<void> {
  for (const [key, n] of keyed) await events.publish(tick(contract, n, { n, note: key }));
}

/** A consumer of another process that takes the next event and never acks it, kept alive so the server never takes it back. */
async function holdNextEvent(nc: NatsConnection, events: JetStreamEvents, name: string): Promise<{ msg: JsMsg; release(): void }> {
  const consumer = await jetstream(nc).consumers.get(events.streamName, name);
  const msg = await vi.waitFor(
    async () => {
      const next = await consumer.next({ expires: 1000 });
      if (!next) throw new Error('no event yet');
      return next;
    },
    { timeout: GUARD_MS },
  );
  const keepAlive = setInterval(() => msg.working(), 1000);
  return { msg, release: () => clearInterval(keepAlive) };
}

afterAll(async () => {
  const { events, nc } = await openJetStreamEvents(namespace, 'ordered-test-cleanup');
  await events.deleteStream();
  await nc.drain();
});

/** ConsumerOptions.orderedBy: the same suite over JetStream and in-process. */
describe.each([
  { name: 'JetStreamEvents', create: () => jetStreamHarness(namespace) },
  { name: 'LocalEvents', create: async () => localEventsHarness() },
])('$name with an ordering key', ({ create }) => {
  let h: EventsHarness;

  beforeEach(async () => {
    h = await create();
  });

  afterEach(async () => {
    await h.close();
  });

  it('handles one key in stream order and different keys at the same time', async () => {
    const contract = tickEvent();
    const keys = ['a', 'b', 'c', 'd'];
    const seen = new Map<string, number[]>(keys.map((key) => [key, []]));
    const firstsStarted = new Set<string>();
    const allFirstsStarted = Promise.withResolvers<void>();
    await h.events.consume(
      'ordered-keys',
      contract,
      async ({ n, note }) => {
        // Each key's first event waits until every key's first one has started: only concurrent keys get here.
        if (seen.get(note)?.length === 0 && !firstsStarted.has(note)) {
          firstsStarted.add(note);
          if (firstsStarted.size === keys.length) allFirstsStarted.resolve();
          await allFirstsStarted.promise;
        }
        seen.get(note)?.push(n);
      },
      { ...byNote, concurrency: keys.length },
    );
    const published: [string, number][] = Array.from({ length: 60 }, (_, n) => [keys[(n * 7) % keys.length], n]);
    await publishKeyed(h.events, contract, published);

    await vi.waitFor(() => expect([...seen.values()].flat()).toHaveLength(60), { timeout: GUARD_MS });
    for (const key of keys) expect(seen.get(key)).toEqual(published.filter(([k]) => k === key).map(([, n]) => n));
  });

  it("keeps one key's blocked event from holding up other keys, and that key's later events behind it", async () => {
    const contract = tickEvent();
    const handled: number[] = [];
    const release = Promise.withResolvers<void>();
    await h.events.consume(
      'ordered-blocked',
      contract,
      async ({ n }) => {
        if (n === 0) await release.promise;
        handled.push(n);
      },
      byNote,
    );
    await publishKeyed(h.events, contract, [
      ['stuck', 0],
      ['other', 1],
      ['stuck', 2],
      ['third', 3],
      ['other', 4],
    ]);

    await vi.waitFor(() => expect(handled).toEqual(expect.arrayContaining([1, 3, 4])), { timeout: GUARD_MS });
    expect(handled).not.toContain(2);
    release.resolve();
    await vi.waitFor(() => expect(handled).toHaveLength(5), { timeout: GUARD_MS });
    expect(handled.indexOf(0)).toBeLessThan(handled.indexOf(2));
  });

  it("retries a failing event before its key's next while other keys go on", async () => {
    const contract = tickEvent();
    const attempts: number[] = [];
    const redelivered: number[] = [];
    let othersDone = false;
    await h.events.consume(
      'ordered-failing',
      contract,
      async ({ n, note }, meta) => {
        attempts.push(n);
        if (meta.redelivered) redelivered.push(n);
        // Fails until every event of the other key was handled: an order only concurrent keys allow.
        if (n === 0 && !othersDone) throw new Error('transient failure');
        if (note === 'other' && n === 4) othersDone = true;
      },
      byNote,
    );
    await publishKeyed(h.events, contract, [
      ['failing', 0],
      ['other', 1],
      ['failing', 2],
      ['other', 3],
      ['other', 4],
    ]);

    await vi.waitFor(() => expect(attempts).toContain(2), { timeout: GUARD_MS });
    const handledFailing = attempts.filter((n) => n === 0 || n === 2);
    // Attempts at 0 until it succeeds, then 2: never 2 before 0 went through.
    expect(handledFailing.at(-1)).toBe(2);
    expect(handledFailing.slice(0, -1).every((n) => n === 0)).toBe(true);
    expect(handledFailing.length).toBeGreaterThan(2);
    expect(redelivered).toContain(0);
    expect(attempts.filter((n) => n % 2 === 1 || n === 4)).toEqual([1, 3, 4]);
  });

  it('tells a handler whether every earlier event has been handled', async () => {
    const contract = tickEvent();
    const answers = new Map<number, boolean>();
    const release = Promise.withResolvers<void>();
    await h.events.consume(
      'ordered-settled',
      contract,
      async ({ n }, meta) => {
        if (n === 0) await release.promise;
        answers.set(n, await meta.earlierSettled());
      },
      byNote,
    );
    await publishKeyed(h.events, contract, [
      ['a', 0],
      ['b', 1],
    ]);
    await vi.waitFor(() => expect(answers.get(1)).toBe(false), { timeout: GUARD_MS });
    release.resolve();
    await vi.waitFor(() => expect(answers.get(0)).toBe(true), { timeout: GUARD_MS });
    await publishKeyed(h.events, contract, [['b', 2]]);
    await vi.waitFor(() => expect(answers.get(2)).toBe(true), { timeout: GUARD_MS });
  });
});

describe('JetStreamEvents with an ordering key', () => {
  let nc: NatsConnection;
  let events: JetStreamEvents;

  beforeEach(async () => {
    ({ nc, events } = await openJetStreamEvents(namespace, 'ordered-test'));
  });

  afterEach(async () => {
    await events.close();
    await nc.drain();
  });

  it("handles and acks other keys' events while another process holds one key's event unacked", async () => {
    const contract = tickEvent();
    const handled: number[] = [];
    const handler = async ({ n }: { n: number }) => {
      handled.push(n);
    };
    // Created, then left: the durable exists for the other process to pull from.
    await (await events.consume('held-elsewhere', contract, handler, byNote)).stop();
    await publishKeyed(events, contract, [
      ['stuck', 0],
      ['a', 1],
      ['b', 2],
      ['a', 3],
      ['c', 4],
    ]);
    const other = await connectNats(NATS_URL, 'ordered-test-other-process');
    try {
      const held = await holdNextEvent(other, events, 'held-elsewhere');
      expect(held.msg.seq).toBeGreaterThan(0);
      await events.consume('held-elsewhere', contract, handler, byNote);

      await vi.waitFor(() => expect([...handled].sort()).toEqual([1, 2, 3, 4]), { timeout: GUARD_MS });
      const jsm = await jetstreamManager(nc);
      // Acked, all but the one the other process holds.
      await vi.waitFor(async () => expect((await jsm.consumers.info(events.streamName, 'held-elsewhere')).num_ack_pending).toBe(1), { timeout: GUARD_MS });

      // That process ends without acking: the event comes here after the ack wait.
      held.release();
      await other.close();
      await vi.waitFor(() => expect(handled).toContain(0), { timeout: GUARD_MS });
    } finally {
      if (!other.isClosed()) await other.close();
    }
  });

  it("answers earlierSettled by the consumer's own subject, whatever other subjects' events lie before or between", async () => {
    const contract = tickEvent();
    const other = tickEvent();
    const answers = new Map<number, boolean>();
    const handler = async ({ n }: { n: number }, meta: { earlierSettled(): Promise<boolean> }) => {
      answers.set(n, await meta.earlierSettled());
    };
    const consumer = await events.consume('settled-by-subject', contract, handler, byNote);
    // Nothing is acked yet when the first one asks: the consumer's ack floor has not moved past the other subject.
    await publishKeyed(events, other, [
      ['x', 100],
      ['x', 101],
    ]);
    await publishKeyed(events, contract, [['a', 0]]);
    await vi.waitFor(() => expect(answers.get(0)).toBe(true), { timeout: GUARD_MS });
    await consumer.stop();

    await publishKeyed(events, contract, [['a', 1]]);
    await publishKeyed(events, other, [['x', 102]]);
    await publishKeyed(events, contract, [['b', 2]]);
    const otherProcess = await connectNats(NATS_URL, 'ordered-test-other-process');
    try {
      const held = await holdNextEvent(otherProcess, events, 'settled-by-subject');
      await events.consume('settled-by-subject', contract, handler, byNote);
      await vi.waitFor(() => expect(answers.get(2)).toBe(false), { timeout: GUARD_MS });
      held.release();
      held.msg.nak();
      await vi.waitFor(() => expect(answers.get(1)).toBe(true), { timeout: GUARD_MS });
    } finally {
      await otherProcess.close();
    }
  });

  it('updates a durable created with the earlier config (30 s ack wait, one event in flight) in place, keeping its position', async () => {
    const contract = tickEvent();
    const jsm = await jetstreamManager(nc);
    await jsm.consumers.add(events.streamName, {
      durable_name: 'upgraded',
      filter_subject: `${namespace}.${contract.subject}`,
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.Explicit,
      max_ack_pending: 1,
      ack_wait: nanos(30_000),
      max_deliver: -1,
    });
    await publishKeyed(events, contract, [
      ['a', 0],
      ['a', 1],
    ]);
    const old = await jetstream(nc).consumers.get(events.streamName, 'upgraded');
    const first = await old.next({ expires: 1000 });
    expect(await first?.ackAck()).toBe(true);

    const seen: number[] = [];
    await events.consume(
      'upgraded',
      contract,
      async ({ n }) => {
        seen.push(n);
      },
      byNote,
    );
    const { config } = await jsm.consumers.info(events.streamName, 'upgraded');
    expect(config).toMatchObject({ ack_wait: nanos(8_000), max_ack_pending: 1024 });
    await vi.waitFor(() => expect(seen).toEqual([1]), { timeout: GUARD_MS });
  });
});

describe('JetStreamEvents across a NATS restart', () => {
  let nats: PrivateNats;

  beforeEach(async () => {
    nats = await startPrivateNats();
  });

  afterEach(async () => {
    await nats.stop();
  });

  it('handles new events after NATS restarts, and an event whose process died with it after the ack wait, not 30 s', async () => {
    const contract = tickEvent();
    const nc = await connectNats(nats.url, 'restart-test');
    const events = await JetStreamEvents.connect(nc, logger, { retryBackoff: TEST_RETRY_BACKOFF });
    const dying = await connectNats(nats.url, 'restart-test-dying-process');
    try {
      const handled: number[] = [];
      const handler = async ({ n }: { n: number }) => {
        handled.push(n);
      };
      await (await events.consume('restarted', contract, handler, byNote)).stop();
      await publishKeyed(events, contract, [['lost', 0]]);
      // A process takes the event and goes down with NATS, never acking it.
      const held = await holdNextEvent(dying, events, 'restarted');
      held.release();
      await events.consume('restarted', contract, handler, byNote);

      await nats.kill();
      await nats.restart();
      // Published once the client is back: the restart is over when these can be stored.
      await vi.waitFor(
        () =>
          publishKeyed(events, contract, [
            ['a', 1],
            ['b', 2],
          ]),
        { timeout: GUARD_MS, interval: 250 },
      );

      await vi.waitFor(() => expect(handled).toEqual(expect.arrayContaining([0, 1, 2])), { timeout: GUARD_MS });
    } finally {
      await events.close();
      await dying.close().catch(() => undefined);
      await nc.close();
    }
  });
});
