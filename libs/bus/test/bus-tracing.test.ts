import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing, stopTracing } from '@lode/telemetry/sdk';
import { inSpan, SpanKind } from '@lode/telemetry';
import { echoContract, localHarness, natsHarness, randomNamespace, type BusHarness } from './fixtures.ts';

// The real SDK and W3C propagator: the server span's parent must come from the message headers.
const spans = new InMemorySpanExporter();
startTracing({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })], instrumentations: [] });
afterAll(() => stopTracing());

const namespace = randomNamespace();

describe.each([
  { name: 'NatsBus', create: () => natsHarness(namespace) },
  { name: 'LocalBus', create: async () => localHarness() },
])('$name trace context', ({ create }) => {
  let h: BusHarness;
  beforeEach(async () => {
    h = await create();
    spans.reset();
  });
  afterEach(() => h.close());

  it("makes the handler a SERVER span, child of the caller's CLIENT span, in the caller's trace", async () => {
    h.server.serve(echoContract, async (request) => ({ echoed: request.text }));
    await h.ready();
    const traceId = await inSpan('api call', { kind: SpanKind.SERVER }, async (root) => {
      await h.client.call(echoContract, { text: 'x' });
      return root.spanContext().traceId;
    });
    const finished = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const client = finished.find((s) => s.name === `${echoContract.subject} call`);
    const server = finished.find((s) => s.name === echoContract.subject);
    expect(client?.kind).toBe(SpanKind.CLIENT);
    expect(server?.kind).toBe(SpanKind.SERVER);
    expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
    expect(server?.attributes['messaging.destination.name']).toBe(echoContract.subject);
  });
});
