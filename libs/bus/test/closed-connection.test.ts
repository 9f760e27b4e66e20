import { afterEach, describe, expect, it } from 'vitest';
import { watchProcessErrors, type ProcessErrorWatch } from '@lode/testkit/process-errors';
import { echoContract, failureOf, openNatsBus, randomNamespace } from './fixtures.ts';

const namespace = randomNamespace();

/** A connection closing under work in progress (an operator's kill, a fatal protocol error) must cost that work only. */
describe('a NatsBus handler that finishes after its connection closed', () => {
  let watch: ProcessErrorWatch | undefined;
  afterEach(() => watch?.stop());

  it('cannot send its reply, and leaves no rejection unhandled; the caller gets service_unavailable', async () => {
    const server = await openNatsBus(namespace, 'closed-server');
    const client = await openNatsBus(namespace, 'closed-client');
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (entered = resolve));
    server.bus.serve(echoContract, async (request) => {
      entered();
      await new Promise<void>((resolve) => (release = resolve));
      return { echoed: request.text };
    });
    await server.nc.flush();
    const call = failureOf(client.bus.call(echoContract, { text: 'hi' }));
    await running;

    watch = watchProcessErrors();
    await server.nc.close();
    release();
    // close() waits for the in-flight handler, which by then has tried to publish its reply.
    await server.bus.close();
    await watch.settle();
    expect(watch.reasons).toEqual([]);

    await client.bus.close();
    expect((await call).code).toBe('service_unavailable');
    await client.nc.drain();
  });
});
