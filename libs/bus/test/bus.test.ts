import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { errors } from '@lode/errors';
import type { NatsBus } from '@lode/bus';
import {
  describeV1,
  describeV2,
  digestOf,
  echoContract,
  failContract,
  failureOf,
  localHarness,
  manifestContract,
  manifestEntries,
  natsHarness,
  openNatsBus,
  randomNamespace,
  sleep,
  slowContract,
  unservedContract,
  whoContract,
  type BusHarness,
} from './fixtures.ts';

const namespace = randomNamespace();
const MIB = 1024 * 1024;

/** The behaviour both buses promise (bus.ts): the same suite runs over real NATS and in-process. */
describe.each([
  { name: 'NatsBus', create: () => natsHarness(namespace) },
  { name: 'LocalBus', create: async () => localHarness() },
])('$name', ({ create }) => {
  let h: BusHarness;

  beforeEach(async () => {
    h = await create();
  });

  afterEach(async () => {
    await h.close();
  });

  describe('contracts', () => {
    it('hands the handler the parsed request and the caller the parsed reply', async () => {
      const seen: unknown[] = [];
      h.server.serve(echoContract, async (request) => {
        seen.push(request);
        return { echoed: request.text.repeat(request.times) };
      });
      await h.ready();

      expect(await h.client.call(echoContract, { text: 'ab', times: 3 })).toEqual({ echoed: 'ababab', via: 'contract' });
      expect(await h.client.call(echoContract, { text: 'ab' })).toEqual({ echoed: 'ab', via: 'contract' });
      // The server-side parse applied the request schema's default.
      expect(seen).toEqual([
        { text: 'ab', times: 3 },
        { text: 'ab', times: 1 },
      ]);
    });

    it('rejects a request that breaks the contract with validation_failed, before the handler runs', async () => {
      let handled = 0;
      h.server.serve(echoContract, async (request) => {
        handled += 1;
        return { echoed: request.text };
      });
      await h.ready();

      // Well-typed yet invalid: only the server-side parse can catch it.
      const failure = await failureOf(h.client.call(echoContract, { text: '', times: -1 }));
      expect(failure.code).toBe('validation_failed');
      expect(failure.message).toBe(`Invalid ${echoContract.subject} request`);
      expect(failure.details?.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'text' }), expect.objectContaining({ path: 'times' })]));
      expect(handled).toBe(0);
    });

    it("rejects a reply that breaks the caller's contract as internal", async () => {
      h.server.serve(describeV1, async () => ({ name: 'v1 server' }));
      await h.ready();

      const failure = await failureOf(h.client.call(describeV2, {}));
      expect(failure.code).toBe('internal');
    });
  });

  describe('errors', () => {
    beforeEach(async () => {
      h.server.serve(failContract, async ({ kind }) => {
        switch (kind) {
          case 'versionConflict':
            throw errors.versionConflict('f-1', 7);
          case 'notFound':
            throw errors.notFound('File');
          case 'crash':
            throw new Error('connection to db://admin:hunter2@db failed');
        }
      });
      await h.ready();
    });

    it("carries a handler's AppError across with its code, message and details", async () => {
      const expected = errors.versionConflict('f-1', 7);
      const failure = await failureOf(h.client.call(failContract, { kind: 'versionConflict' }));
      expect({ code: failure.code, message: failure.message, details: failure.details }).toEqual({
        code: 'version_conflict',
        message: expected.message,
        details: { versionConflict: true },
      });
    });

    it('carries an AppError without details as one without details', async () => {
      const failure = await failureOf(h.client.call(failContract, { kind: 'notFound' }));
      expect({ code: failure.code, message: failure.message, details: failure.details }).toEqual({
        code: 'not_found',
        message: 'File not found',
        details: undefined,
      });
    });

    it('turns any other throw into internal without leaking its message', async () => {
      const failure = await failureOf(h.client.call(failContract, { kind: 'crash' }));
      expect(failure.code).toBe('internal');
      expect(failure.message).toBe('Internal error');
      expect(JSON.stringify({ ...failure.toJSON(), stack: failure.stack })).not.toContain('hunter2');
    });
  });

  describe('unavailability', () => {
    it('fails with service_unavailable when nobody serves the subject', async () => {
      const failure = await failureOf(h.client.call(unservedContract, { blob: 'x' }, { timeoutMs: 5000 }));
      expect(failure.code).toBe('service_unavailable');
    });

    it('fails a large request with service_unavailable when nobody serves the subject', async () => {
      const failure = await failureOf(h.client.call(unservedContract, { blob: 'x'.repeat(3 * MIB) }, { timeoutMs: 5000 }));
      expect(failure.code).toBe('service_unavailable');
    });

    it('fails with timeout when the handler is slower than timeoutMs', async () => {
      // The handler answers only once the test lets it, after the call has ended: however slowly a
      // loaded machine runs either side, the call can end only by giving up on it.
      const handlerAnswers = Promise.withResolvers<void>();
      h.server.serve(slowContract, async () => {
        await handlerAnswers.promise;
        return { done: true as const };
      });
      await h.ready();

      // Only for a bus that waits for the handler regardless: it then gets its answer and the test
      // fails on that, instead of hanging until the test's own timeout.
      const hangGuard = setTimeout(handlerAnswers.resolve, 30_000);
      try {
        const failure = await failureOf(h.client.call(slowContract, { delayMs: 0 }, { timeoutMs: 100 }));
        expect(failure.code).toBe('timeout');
      } finally {
        clearTimeout(hangGuard);
        handlerAnswers.resolve();
      }
    });

    it('waits for a slow handler when timeoutMs is beyond what a Node timer holds, instead of timing out at once', async () => {
      h.server.serve(slowContract, async ({ delayMs }) => {
        await sleep(delayMs);
        return { done: true as const };
      });
      await h.ready();

      await expect(h.client.call(slowContract, { delayMs: 50 }, { timeoutMs: Number.MAX_SAFE_INTEGER })).resolves.toEqual({ done: true });
    });
  });

  describe('large payloads on a 1 MiB server', () => {
    const COUNT = 25_000;

    beforeEach(async () => {
      h.server.serve(manifestContract, async (request) => ({
        seed: request.seed,
        receivedCount: request.entries.length,
        receivedDigest: digestOf(request.entries),
        entries: manifestEntries(request.seed, request.replyEntries),
      }));
      await h.ready();
    });

    it('carries a ~5 MB request intact', async () => {
      const entries = manifestEntries('request', COUNT);
      expect(Buffer.byteLength(JSON.stringify(entries))).toBeGreaterThan(5 * MIB);

      const reply = await h.client.call(manifestContract, { seed: 'request', entries, replyEntries: 0 });
      expect(reply).toEqual({ seed: 'request', receivedCount: COUNT, receivedDigest: digestOf(entries), entries: [] });
    });

    it('carries a ~5 MB reply intact', async () => {
      const reply = await h.client.call(manifestContract, { seed: 'reply', entries: [], replyEntries: COUNT });
      expect(reply.entries).toHaveLength(COUNT);
      expect(digestOf(reply.entries)).toBe(digestOf(manifestEntries('reply', COUNT)));
    });

    it('carries a ~5 MB request and a ~5 MB reply in one call', async () => {
      const entries = manifestEntries('both', COUNT);
      const reply = await h.client.call(manifestContract, { seed: 'both', entries, replyEntries: COUNT });
      expect(reply.receivedDigest).toBe(digestOf(entries));
      expect(digestOf(reply.entries)).toBe(digestOf(entries));
    });

    it('keeps the chunks of concurrent large calls apart', async () => {
      const seeds = ['alpha', 'bravo', 'charlie', 'delta'];
      const replies = await Promise.all(
        seeds.map((seed) => h.client.call(manifestContract, { seed, entries: manifestEntries(seed, 12_000), replyEntries: 12_000 })),
      );
      replies.forEach((reply, i) => {
        const expected = digestOf(manifestEntries(seeds[i], 12_000));
        expect(reply.seed).toBe(seeds[i]);
        expect(reply.receivedDigest).toBe(expected);
        expect(digestOf(reply.entries)).toBe(expected);
      });
    });

    it('still validates a large request: one bad entry is validation_failed', async () => {
      const entries = manifestEntries('bad', COUNT);
      entries[COUNT - 1] = { ...entries[COUNT - 1], sha256: 'not-a-hash' };
      const failure = await failureOf(h.client.call(manifestContract, { seed: 'bad', entries, replyEntries: 0 }));
      expect(failure.code).toBe('validation_failed');
      expect(failure.details?.issues).toEqual([expect.objectContaining({ path: `entries.${COUNT - 1}.sha256` })]);
    });
  });

  describe('close()', () => {
    it('waits for an in-flight handler, whose caller still gets its reply', async () => {
      const { started, release, events } = await serveHeldHandler(h);

      const call = h.client.call(slowContract, { delayMs: 0 });
      try {
        await started.promise;
        await expectCloseWaitsForHandler(h, release, events);
        expect(await call).toEqual({ done: true });
      } finally {
        release.resolve();
      }
    });

    it('waits for a handler whose caller has already timed out', async () => {
      const { started, release, events } = await serveHeldHandler(h);

      try {
        const failure = failureOf(h.client.call(slowContract, { delayMs: 0 }, { timeoutMs: 100 }));
        await started.promise;
        expect((await failure).code).toBe('timeout');
        // The handler may still be writing somewhere; shutdown must not pull the database from under it.
        await expectCloseWaitsForHandler(h, release, events);
      } finally {
        release.resolve();
      }
    });

    it('takes no new requests once closed', async () => {
      h.server.serve(echoContract, async (request) => ({ echoed: request.text }));
      await h.ready();
      await h.server.close();

      const failure = await failureOf(h.client.call(echoContract, { text: 'late' }, { timeoutMs: 5000 }));
      expect(failure.code).toBe('service_unavailable');
    });
  });
});

/** A slow-contract handler that starts, then holds until released, logging when it finishes. */
async function serveHeldHandler(h: BusHarness) {
  const started = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const events: string[] = [];
  h.server.serve(slowContract, async () => {
    started.resolve();
    await release.promise;
    events.push('handler finished');
    return { done: true as const };
  });
  await h.ready();
  return { started, release, events };
}

/** close() must not resolve while the held handler runs, and must resolve once it has finished. */
async function expectCloseWaitsForHandler(h: BusHarness, release: PromiseWithResolvers<void>, events: string[]): Promise<void> {
  const closed = h.server.close().then(() => events.push('close resolved'));
  await sleep(100);
  expect(events).toEqual([]);
  release.resolve();
  await closed;
  expect(events).toEqual(['handler finished', 'close resolved']);
}

describe('NatsBus across instances', () => {
  const opened: { bus: NatsBus; nc: NatsConnection }[] = [];

  async function open(name: string): Promise<{ bus: NatsBus; nc: NatsConnection }> {
    const instance = await openNatsBus(namespace, name);
    opened.push(instance);
    return instance;
  }

  /** Two instances of one service on two connections, each answering with its own name. */
  async function twoInstances(handled: string[]): Promise<void> {
    const instances = [await open('instance-a'), await open('instance-b')];
    instances.forEach(({ bus }, i) => {
      bus.serve(whoContract, async ({ requestId }) => {
        handled.push(requestId);
        await sleep(5);
        return { requestId, servedBy: i === 0 ? 'a' : 'b' };
      });
    });
    await Promise.all(instances.map(({ nc }) => nc.flush()));
  }

  afterEach(async () => {
    for (const { bus } of opened) await bus.close();
    await Promise.all(opened.map(({ nc }) => nc.drain()));
    opened.length = 0;
  });

  it('runs against a server whose max_payload is 1 MiB, so large payloads really are chunked', async () => {
    const { nc } = await open('probe');
    expect(nc.info?.max_payload).toBe(MIB);
  });

  it('shares the load of a queue group, each request handled exactly once', async () => {
    const handled: string[] = [];
    await twoInstances(handled);
    const { bus: caller } = await open('caller');

    const ids = Array.from({ length: 60 }, (_, i) => `request-${i}`);
    const replies = await Promise.all(ids.map((requestId) => caller.call(whoContract, { requestId })));

    expect(replies.map((r) => r.requestId)).toEqual(ids);
    expect([...handled].sort()).toEqual([...ids].sort());
    const byA = replies.filter((r) => r.servedBy === 'a').length;
    expect(byA).toBeGreaterThan(0);
    expect(byA).toBeLessThan(ids.length);
  });

  it('sends each large request of a queue group to exactly one instance', async () => {
    const handled: string[] = [];
    await twoInstances(handled);
    const { bus: caller } = await open('caller');

    const ids = Array.from({ length: 6 }, (_, i) => `large-${i}`);
    const padding = 'p'.repeat(3 * MIB);
    const replies = await Promise.all(ids.map((requestId) => caller.call(whoContract, { requestId, padding })));

    expect(replies.map((r) => r.requestId)).toEqual(ids);
    expect([...handled].sort()).toEqual([...ids].sort());
  });
});
