import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInbox, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { connectNats, NatsBus, type NatsBusOptions } from '@lode/bus';
import { H } from '@lode/bus/headers';
import { startPrivateNats, type PrivateNats } from '@lode/testkit/private-nats';
import { watchProcessErrors, type ProcessErrorWatch } from '@lode/testkit/process-errors';
import { echoContract, failureOf, logger, randomNamespace, sleep } from './fixtures.ts';

const namespace = randomNamespace();
/** Far longer than any outage here lasts: a call that ends as `timeout` waited for a reply that could not come. */
const LONG_TIMEOUT_MS = 20_000;
/** Hang guard while polling for recovery, not a latency bound. */
const RECOVERY_DEADLINE_MS = 45_000;

interface Endpoint {
  nc: NatsConnection;
  bus: NatsBus;
}

/** Every endpoint a test opened, closed after it. */
const opened: Endpoint[] = [];

function endpoint(nc: NatsConnection, options: NatsBusOptions = {}): Endpoint {
  const opening = { nc, bus: new NatsBus(nc, logger, { namespace, ...options }) };
  opened.push(opening);
  return opening;
}

async function openBus(nats: PrivateNats, name: string, options: NatsBusOptions = {}): Promise<Endpoint> {
  return endpoint(await connectNats(nats.url, name), options);
}

/** Resolves at the connection's next status of `type`; ask before causing it, since a status iterator sees only later ones. */
async function nextStatus(nc: NatsConnection, type: 'disconnect' | 'reconnect'): Promise<void> {
  for await (const status of nc.status()) if (status.type === type) return;
}

async function killAndNotice(nats: PrivateNats, ...endpoints: Endpoint[]): Promise<void> {
  const noticed = endpoints.map(({ nc }) => nextStatus(nc, 'disconnect'));
  await nats.kill();
  await Promise.all(noticed);
}

/** Calls until one succeeds; every failure on the way must be the fast service_unavailable, never a timeout. */
async function callUntilAnswered(client: NatsBus): Promise<{ answer: unknown; failures: string[] }> {
  const deadline = Date.now() + RECOVERY_DEADLINE_MS;
  const failures: string[] = [];
  for (;;) {
    try {
      return { answer: await client.call(echoContract, { text: 'back' }, { timeoutMs: LONG_TIMEOUT_MS }), failures };
    } catch (error) {
      failures.push((error as { code?: string }).code ?? String(error));
      if (Date.now() > deadline) throw new Error(`no answer after the restart; failures: ${failures.join(', ')}`, { cause: error });
      await sleep(100);
    }
  }
}

describe('NatsBus while its NATS server is down', () => {
  let nats: PrivateNats;
  let watch: ProcessErrorWatch;

  beforeEach(async () => {
    nats = await startPrivateNats();
    watch = watchProcessErrors();
  });

  afterEach(async () => {
    if (!nats.running()) await nats.restart();
    for (const { bus, nc } of opened.splice(0)) {
      await bus.close();
      await nc.close();
    }
    await nats.stop();
    await watch.settle();
    watch.stop();
    // Each would have killed a service process (Node's default): nothing may leak from an outage.
    expect(watch.reasons).toEqual([]);
  });

  // Still runs when a failing test left afterEach hanging on a bus, so no nats-server outlives the run.
  afterAll(() => nats?.stop());

  const serveEcho = async (options: NatsBusOptions = {}): Promise<Endpoint> => {
    const server = await openBus(nats, 'outage-server', options);
    server.bus.serve(echoContract, async (request) => ({ echoed: request.text.repeat(request.times) }));
    await server.nc.flush();
    return server;
  };

  it('fails a call made during the outage at once with service_unavailable (Retry-After 1), not after its timeout', async () => {
    await serveEcho();
    const client = await openBus(nats, 'outage-client');
    await killAndNotice(nats, client);

    const failure = await failureOf(client.bus.call(echoContract, { text: 'hi' }, { timeoutMs: LONG_TIMEOUT_MS }));
    expect(failure.code).toBe('service_unavailable');
    expect(failure.details).toEqual({ retryAfterSeconds: 1 });
  });

  it('fails a call already waiting when NATS dies with service_unavailable, and drops the (chunked) reply its handler produces meanwhile', async () => {
    // A small frame size, so the held reply goes out as several chunks while the connection is down.
    const server = await openBus(nats, 'outage-server', { maxFrameBytes: 1024 });
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (entered = resolve));
    const answered = new Promise<void>((resolve) => {
      server.bus.serve(echoContract, async (request) => {
        entered();
        await new Promise<void>((r) => (release = r));
        resolve();
        return { echoed: request.text.repeat(request.times) };
      });
    });
    await server.nc.flush();
    const client = await openBus(nats, 'outage-client');

    const call = failureOf(client.bus.call(echoContract, { text: 'x', times: 10_000 }, { timeoutMs: LONG_TIMEOUT_MS }));
    await running;
    await killAndNotice(nats, client, server);
    const failure = await call;
    release();
    await answered;
    await watch.settle();

    expect(failure.code).toBe('service_unavailable');
    expect(watch.reasons).toEqual([]);
  });

  it('answers again after NATS restarts, on the same buses: the queue group and the reply inbox resubscribe by themselves', async () => {
    const server = await serveEcho();
    const client = await openBus(nats, 'outage-client');
    expect(await client.bus.call(echoContract, { text: 'before' })).toEqual({ echoed: 'before', via: 'contract' });
    await killAndNotice(nats, client, server);

    await nats.restart();
    const { answer, failures } = await callUntilAnswered(client.bus);
    expect(answer).toEqual({ echoed: 'back', via: 'contract' });
    expect(failures.filter((code) => code !== 'service_unavailable')).toEqual([]);
  });

  it('is not ready while disconnected, and ready again once reconnected', async () => {
    const client = await openBus(nats, 'outage-client');
    await expect(client.bus.ready()).resolves.toBeUndefined();
    await killAndNotice(nats, client);

    const failure = await failureOf(client.bus.ready());
    expect(failure.code).toBe('service_unavailable');

    const reconnected = nextStatus(client.nc, 'reconnect');
    await nats.restart();
    await reconnected;
    await expect(client.bus.ready()).resolves.toBeUndefined();
  });

  it('abandons a chunked request it is collecting when NATS dies, so closing does not wait for chunks that cannot come', async () => {
    // Otherwise the responder would give up only after its bus timeout: far beyond this test's own.
    const server = await serveEcho({ timeoutMs: 3_600_000 });
    const client = await openBus(nats, 'outage-client');
    // The opening of a large request, by hand, so the responder sits collecting chunks that are never sent.
    const inbox = createInbox();
    const offers = client.nc.subscribe(inbox, { max: 1 });
    const offer = natsHeaders();
    offer.set(H.requestBytes, String(64 * 1024));
    client.nc.publish(`${namespace}.${echoContract.subject}`, new Uint8Array(0), { reply: inbox, headers: offer });
    for await (const answer of offers) expect(answer.headers?.get(H.sendTo)).toBeTruthy();

    await killAndNotice(nats, server);
    await server.bus.close();
  });

  it('keeps retrying a first connect made while NATS is down, and works once it is up', async () => {
    await nats.kill();
    const connecting = connectNats(nats.url, 'outage-late');
    await nats.restart();
    const client = endpoint(await connecting);
    await serveEcho();

    expect(await client.bus.call(echoContract, { text: 'late' })).toEqual({ echoed: 'late', via: 'contract' });
  });
});
