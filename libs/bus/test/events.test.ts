import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing, stopTracing } from '@lode/telemetry/sdk';
import { inSpan, SpanKind } from '@lode/telemetry';
import { connectNats, EventTooLargeError, LocalEvents, type EventMeta } from '@lode/bus';
import {
  jetStreamHarness,
  localEventsHarness,
  logger,
  NATS_URL,
  openJetStreamEvents,
  randomNamespace,
  sleep,
  tick,
  tickEvent,
  TEST_RETRY_BACKOFF,
  type EventsHarness,
  type TickEvent,
} from './fixtures.ts';

const namespace = randomNamespace();
const MIB = 1024 * 1024;
// The real SDK with its W3C propagator, so trace context crosses the wire as in production.
const spans = new InMemorySpanExporter();
startTracing({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })], instrumentations: [] });

function range(count: number, from = 0): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

async function publishAll(h: EventsHarness, contract: TickEvent, ns: number[]): Promise<void> {
  for (const n of ns) await h.events.publish(tick(contract, n));
}

afterAll(async () => {
  const { events, nc } = await openJetStreamEvents(namespace, 'events-test-cleanup');
  await events.deleteStream();
  await nc.drain();
  await stopTracing();
});

/** The promises of EventStream (events.ts): the same suite runs over JetStream and in-process. */
describe.each([
  { name: 'JetStreamEvents', create: () => jetStreamHarness(namespace) },
  { name: 'LocalEvents', create: async () => localEventsHarness() },
])('$name', ({ create }) => {
  let h: EventsHarness;

  beforeEach(async () => {
    h = await create();
  });

  afterEach(async () => {
    await h.close();
  });

  it('delivers 200 events in publish order, parsed with the contract, stored before and after the consumer started', async () => {
    const contract = tickEvent();
    const seen: { event: unknown; meta: EventMeta }[] = [];
    await publishAll(h, contract, range(100));
    await h.events.consume('in-order', contract, async (event, meta) => {
      seen.push({ event, meta });
    });
    await publishAll(h, contract, range(100, 100));

    await vi.waitFor(() => expect(seen).toHaveLength(200), { timeout: 20_000 });
    // `note` comes from the schema's default: the handler got the parse, not the raw payload.
    expect(seen.map(({ event }) => event)).toEqual(range(200).map((n) => ({ n, note: '' })));
    expect(seen.map(({ meta }) => meta.id)).toEqual(range(200).map((n) => tick(contract, n).id));
    const seqs = seen.map(({ meta }) => meta.streamSeq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(200);
    expect(seen.some(({ meta }) => meta.redelivered)).toBe(false);
  });

  it('stores an event published twice with the same id once', async () => {
    const contract = tickEvent();
    const seen: number[] = [];
    await h.events.consume('dedup', contract, async ({ n }) => {
      seen.push(n);
    });
    await h.events.publish(tick(contract, 1));
    await h.events.publish({ ...tick(contract, 1), data: { n: 99 } });
    await h.events.publish(tick(contract, 2));

    await vi.waitFor(() => expect(seen).toContain(2));
    expect(seen).toEqual([1, 2]);
  });

  it('hands a failed event over again after a backoff, before any later event', async () => {
    const contract = tickEvent();
    const seen: { n: number; redelivered: boolean; at: number }[] = [];
    let failed = false;
    await h.events.consume('retry', contract, async ({ n }, meta) => {
      seen.push({ n, redelivered: meta.redelivered, at: performance.now() });
      if (n === 1 && !failed) {
        failed = true;
        throw new Error('transient failure');
      }
    });
    await publishAll(h, contract, range(4));

    await vi.waitFor(() => expect(seen).toHaveLength(5));
    expect(seen.map(({ n, redelivered }) => ({ n, redelivered }))).toEqual([
      { n: 0, redelivered: false },
      { n: 1, redelivered: false },
      { n: 1, redelivered: true },
      { n: 2, redelivered: false },
      { n: 3, redelivered: false },
    ]);
    expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(TEST_RETRY_BACKOFF.initialMs - 5);
  });

  it('resumes a restarted consumer after the last event it handled, not from the start', async () => {
    const contract = tickEvent();
    await publishAll(h, contract, range(10));
    const before: number[] = [];
    const fifth = Promise.withResolvers<void>();
    const consumer = await h.events.consume('resume', contract, async ({ n }) => {
      before.push(n);
      if (before.length === 5) fifth.resolve();
    });
    await fifth.promise;
    await consumer.stop();
    const handledBeforeStop = before.length;

    const after: number[] = [];
    const restarted = await h.open();
    await restarted.consume('resume', contract, async ({ n }) => {
      after.push(n);
    });

    await vi.waitFor(() => expect(before.length + after.length).toBeGreaterThanOrEqual(10));
    expect(before).toHaveLength(handledBeforeStop);
    expect(after[0]).toBe(handledBeforeStop);
    expect([...before, ...after]).toEqual(range(10));
  });

  it('stop() waits for the handler in flight, and that event counts as handled', async () => {
    const contract = tickEvent();
    const started = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const steps: string[] = [];
    const consumer = await h.events.consume('stop-waits', contract, async ({ n }) => {
      if (n !== 0) return;
      started.resolve();
      await release.promise;
      steps.push('handler finished');
    });
    await publishAll(h, contract, range(2));
    await started.promise;

    const stopped = consumer.stop().then(() => steps.push('stop resolved'));
    await sleep(100);
    expect(steps).toEqual([]);
    release.resolve();
    await stopped;
    expect(steps).toEqual(['handler finished', 'stop resolved']);

    const after: number[] = [];
    await (
      await h.open()
    ).consume('stop-waits', contract, async ({ n }) => {
      after.push(n);
    });
    await vi.waitFor(() => expect(after).toEqual([1]));
  });

  it('leaves an event that arrives while an idle consumer stops to the next consumer, without delay', async () => {
    const contract = tickEvent();
    const before: number[] = [];
    const consumer = await h.events.consume('handover', contract, async ({ n }) => {
      before.push(n);
    });
    await h.events.publish(tick(contract, 0));
    await vi.waitFor(() => expect(before).toEqual([0]));
    const stopped = consumer.stop();
    await h.events.publish(tick(contract, 1));
    await stopped;

    const after: number[] = [];
    await (
      await h.open()
    ).consume('handover', contract, async ({ n }) => {
      after.push(n);
    });
    // Far below the 30 s ack wait that would apply had the stopping consumer kept the event.
    await vi.waitFor(() => expect(after).toEqual([1]), { timeout: 5_000 });
    expect(before).toEqual([0]);
  });

  it('gives every event to each of two consumers with different names', async () => {
    const contract = tickEvent();
    const byName: Record<string, number[]> = { indexer: [], notifier: [] };
    for (const name of Object.keys(byName)) {
      await h.events.consume(name, contract, async ({ n }) => {
        byName[name].push(n);
      });
    }
    await publishAll(h, contract, range(20));

    await vi.waitFor(() => expect(byName.indexer.length + byName.notifier.length).toBe(40));
    expect(byName).toEqual({ indexer: range(20), notifier: range(20) });
  });

  it('shares the events of one name between two consumers (replicas): each handled once, in order', async () => {
    const contract = tickEvent();
    const handled: number[] = [];
    const replica = async ({ n }: { n: number }) => {
      handled.push(n);
      await sleep(2);
    };
    await h.events.consume('shared', contract, replica);
    await (await h.open()).consume('shared', contract, replica);
    await publishAll(h, contract, range(30));

    await vi.waitFor(() => expect(handled.length).toBeGreaterThanOrEqual(30));
    await sleep(200);
    expect(handled).toEqual(range(30));
  });

  it('refuses an event over 1 MiB with an error naming its size and the limit, and stores nothing', async () => {
    const contract = tickEvent();
    const seen: number[] = [];
    await h.events.consume('too-large', contract, async ({ n }) => {
      seen.push(n);
    });

    const failure = await h.events.publish(tick(contract, 0, { n: 0, note: 'x'.repeat(MIB) })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EventTooLargeError);
    const tooLarge = failure as EventTooLargeError;
    expect(tooLarge.limit).toBe(MIB);
    expect(tooLarge.bytes).toBeGreaterThan(MIB);
    expect(tooLarge.message).toContain(`Event ${contract.subject} is ${tooLarge.bytes} bytes, over the limit of ${MIB} bytes`);

    await h.events.publish(tick(contract, 1));
    await vi.waitFor(() => expect(seen).toEqual([1]));
  });

  it('drops an event that breaks the schema and goes on with the next', async () => {
    const contract = tickEvent();
    const seen: number[] = [];
    await h.events.consume('invalid', contract, async ({ n }) => {
      seen.push(n);
    });
    await h.events.publish(tick(contract, 0, { n: 'zero' }));
    await h.events.publish(tick(contract, 1));

    await vi.waitFor(() => expect(seen).toEqual([1]));
    await sleep(TEST_RETRY_BACKOFF.maxMs * 2);
    expect(seen).toEqual([1]);
  });

  it('starts a new consumer with deliverFrom "new" after the events already stored', async () => {
    const contract = tickEvent();
    await publishAll(h, contract, range(3));
    const seen: number[] = [];
    await h.events.consume(
      'from-new',
      contract,
      async ({ n }) => {
        seen.push(n);
      },
      { deliverFrom: 'new' },
    );
    await publishAll(h, contract, range(2, 3));

    await vi.waitFor(() => expect(seen).toEqual([3, 4]));
  });

  it('close() stops every consumer', async () => {
    const contract = tickEvent();
    const seen: number[] = [];
    await h.events.consume('closing', contract, async ({ n }) => {
      seen.push(n);
    });
    await h.events.publish(tick(contract, 0));
    await vi.waitFor(() => expect(seen).toEqual([0]));

    await h.events.close();
    await h.events.publish(tick(contract, 1));
    await sleep(300);
    expect(seen).toEqual([0]);
  });

  it('refuses a consumer name that could not be a durable name, and a second contract under one name', async () => {
    const handler = async () => {};
    await expect(h.events.consume('bad.name', tickEvent(), handler)).rejects.toThrow('Consumer name "bad.name" must match');
    const first = tickEvent();
    const second = tickEvent();
    await h.events.consume('one-contract', first, handler);
    await expect(h.events.consume('one-contract', second, handler)).rejects.toThrow(/^Consumer one-contract already consumes \S*\.evtest\.tick_/);
  });

  describe('trace context', () => {
    beforeEach(() => spans.reset());

    async function processSpanOf(contract: TickEvent) {
      const name = `${contract.subject} process`;
      return vi.waitFor(() => {
        const span = spans.getFinishedSpans().find((s) => s.name === name);
        if (!span) throw new Error(`no ${name} span yet`);
        return span;
      });
    }

    it('runs the handler in a CONSUMER span whose parent is the traceContext stored with the event', async () => {
      const contract = tickEvent();
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentSpanId = '00f067aa0ba902b7';
      let handlerTraceId: string | undefined;
      await h.events.consume('traced', contract, async () => {
        handlerTraceId = trace.getActiveSpan()?.spanContext().traceId;
      });
      await h.events.publish({ ...tick(contract, 0), traceContext: { traceparent: `00-${traceId}-${parentSpanId}-01` } });

      const span = await processSpanOf(contract);
      expect(span.kind).toBe(SpanKind.CONSUMER);
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.parentSpanContext?.spanId).toBe(parentSpanId);
      expect(handlerTraceId).toBe(traceId);
    });

    it('without a stored traceContext, joins the trace active when the event was published', async () => {
      const contract = tickEvent();
      await h.events.consume('traced-active', contract, async () => {});
      const producer = await inSpan('produce', { kind: SpanKind.INTERNAL }, async (span) => {
        await h.events.publish(tick(contract, 0));
        return span.spanContext();
      });

      const span = await processSpanOf(contract);
      expect(span.kind).toBe(SpanKind.CONSUMER);
      expect(span.spanContext().traceId).toBe(producer.traceId);
      expect(span.parentSpanContext?.spanId).toBe(producer.spanId);
    });
  });
});

describe('JetStreamEvents stream', () => {
  it('is created once however many processes start together, and takes a changed max age', async () => {
    const own = randomNamespace();
    const racing = await Promise.all(range(3).map((i) => openJetStreamEvents(own, `racer-${i}`)));
    const nc = await connectNats(NATS_URL, 'events-test-inspect');
    const jsm = await jetstreamManager(nc);
    try {
      const { config } = await jsm.streams.info(racing[0].events.streamName);
      expect(config).toMatchObject({
        name: `LODE_EVENTS_${own}`,
        subjects: [`${own}.lode.events.>`],
        storage: 'file',
        discard: 'old',
        duplicate_window: nanos(2 * 60_000),
        max_age: nanos(7 * 24 * 60 * 60_000),
      });

      const changed = await openJetStreamEvents(own, 'restarted', 60 * 60_000);
      racing.push(changed);
      expect((await jsm.streams.info(changed.events.streamName)).config.max_age).toBe(nanos(60 * 60_000));
    } finally {
      await racing[0].events.deleteStream();
      await Promise.all([...racing.map((r) => r.nc.drain()), nc.drain()]);
    }
  });

  it('counts headers against max_payload exactly: the largest event that fits is stored, one byte more is refused', async () => {
    const { events, nc } = await openJetStreamEvents(namespace, 'events-test-boundary');
    try {
      const contract = tickEvent();
      const id = `${contract.name}-boundary`;
      const headerBytes = Buffer.byteLength(`NATS/1.0\r\nNats-Msg-Id: ${id}\r\n\r\n`);
      const envelope = Buffer.byteLength(JSON.stringify({ n: 0, note: '' }));
      const fits = { subject: contract.subject, id, data: { n: 0, note: 'x'.repeat(MIB - headerBytes - envelope) } };
      const over = { ...fits, data: { n: 0, note: `${fits.data.note}x` } };

      await expect(events.publish(over)).rejects.toThrow(new EventTooLargeError(contract.subject, MIB + 1, MIB).message);
      await expect(events.publish(fits)).resolves.toBeUndefined();
    } finally {
      await nc.drain();
    }
  });
});

describe('LocalEvents retention', () => {
  it('drops the oldest events every consumer has passed once they exceed the retained bytes, and only those', async () => {
    const events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF, retainedBytes: 500 });
    const contract = tickEvent();
    const fast: number[] = [];
    const slow: number[] = [];
    await events.consume('fast', contract, async ({ n }) => {
      fast.push(n);
    });
    // Registered, then stopped before reading anything: its place holds every event back.
    const holder = await events.consume('holder', contract, async ({ n }) => {
      slow.push(n);
    });
    await holder.stop();
    for (const n of range(200)) await events.publish(tick(contract, n));
    await vi.waitFor(() => expect(fast).toHaveLength(200));
    const resumed = await events.consume('holder', contract, async ({ n }) => {
      slow.push(n);
    });
    await vi.waitFor(() => expect(slow).toHaveLength(200));
    await resumed.stop();
    // Now both have passed everything: a newcomer reading from the start finds only the retained tail.
    const late: number[] = [];
    await events.consume('late', contract, async ({ n }) => {
      late.push(n);
    });
    await vi.waitFor(() => expect(late.at(-1)).toBe(199));
    expect(late.length).toBeLessThan(100);
    expect(late).toEqual(range(late.length, 200 - late.length));
    await events.close();
  });
});
