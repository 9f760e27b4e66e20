import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus } from '@lode/bus';
import { webhooks, type identity, type ParsedRequestOf, type ReplyInputOf } from '@lode/contracts';
import { errors } from '@lode/errors';
import { createLogger } from '@lode/telemetry';
import { serveMetrics, startMetrics } from '@lode/telemetry/metrics-sdk';
import { errorHandler } from '@lode/gateway/http/error-handler';
import { eventRoutes } from '@lode/gateway/routes/events';
import { eventually } from './receiver.ts';
import { FeedClient } from './sse.ts';

type Read = ParsedRequestOf<typeof webhooks.readFeed>;

// Before any feed opens: the open-feeds gauge binds to the meter provider of its first use.
startMetrics('lode-feed-route-test');

const projectId = randomUUID();
/** What authentication leaves for the route: a key of the project (its id told by the header below). */
const identityOf = (keyId: string): identity.KeyIdentity => ({
  keyId,
  deviceId: null,
  revoked: false,
  role: 'member',
  userId: randomUUID(),
  userName: 'Mia',
  userAvatarUrl: null,
  projectId,
  projectName: 'Game',
  projectSlug: 'game',
  projectIconUrl: null,
  writeRatePerSecond: null,
  writeRateBurst: null,
  orgId: randomUUID(),
  orgName: 'Studio',
  orgSlug: 'studio',
  projectPurgeAfter: null,
  projectPurgedAt: null,
});

/**
 * The feed route alone, behind a stand-in for authentication, over a bus whose webhooks service the
 * test plays: its reads answer, fail or wait as each test says, which a whole stack cannot be made to do.
 */
describe('the feed route when the webhooks service misbehaves', () => {
  const logger = createLogger('test', 'silent');
  const bus = new LocalBus(logger);
  let server: Server;
  let baseUrl: string;
  let answer: (read: Read) => Promise<ReplyInputOf<typeof webhooks.readFeed>>;
  const reads: Read[] = [];
  /** What re-authenticating a key's caller does, per key id; by default the key is still good. */
  const rechecks = new Map<string, () => Promise<void>>();
  const recheckCount = new Map<string, number>();
  /** Keys of the requests whose response closed (client gone or feed ended). */
  const left = new Set<string>();
  const open: FeedClient[] = [];
  const feed = async (keyId: string) => {
    const client = await FeedClient.open(`${baseUrl}/api/v1/projects/${projectId}/events`, { 'x-test-key': keyId });
    open.push(client);
    return client;
  };
  const readsOf = (keyId: string) => reads.filter((r) => r.actor.keyId === keyId);
  /** The gateway's lode_events_feeds_open, as Prometheus scrapes it. */
  const openFeeds = async () => {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    return Number(/^lode_events_feeds_open(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
  };

  beforeAll(async () => {
    bus.serve(webhooks.readFeed, (read) => {
      reads.push(read);
      return answer(read);
    });
    const app = express();
    app.get('/metrics', serveMetrics);
    const standIn: express.RequestHandler = (req, res, next) => {
      const keyId = String(req.get('x-test-key'));
      const identity = identityOf(keyId);
      res.locals.identity = identity;
      res.locals.recheck = async () => {
        recheckCount.set(keyId, (recheckCount.get(keyId) ?? 0) + 1);
        await rechecks.get(keyId)?.();
        return identity;
      };
      res.on('close', () => left.add(keyId));
      next();
    };
    app.use('/api/v1/projects/:projectId', standIn, eventRoutes(bus, 100));
    // Feeds that live briefly, and feeds that check their caller often, for the tests of each.
    app.use('/brief/api/v1/projects/:projectId', standIn, eventRoutes(bus, 100, { recheckMs: 3_600_000, maxMs: 300 }));
    app.use('/checked/api/v1/projects/:projectId', standIn, eventRoutes(bus, 100, { recheckMs: 20, maxMs: 3_600_000 }));
    app.use(errorHandler(logger));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await bus.close();
  });

  it('keeps writing keep-alive comments while every read after the first fails', async () => {
    const keyId = randomUUID();
    answer = async (read) => {
      if (read.waitMs === 0) return { events: [], reset: false, next: 0 };
      throw errors.serviceUnavailable('webhooks');
    };
    const client = await feed(keyId);
    expect(client.status).toBe(200);
    await eventually(
      'keep-alive comments during failed reads',
      () => readsOf(keyId).length >= 2 && client.comments.filter((c) => c === 'keep-alive').length >= 2,
    );
    expect(client.events).toEqual([]);
  });

  it('closes a feed at its maximum lifetime with a closed event, and the client resumes where it was with Last-Event-ID', async () => {
    const keyId = randomUUID();
    // A quiet project whose last event the client saw is at position 8.
    answer = async (read) => {
      await sleep(Math.min(read.waitMs, 50));
      return { events: [], reset: false, next: read.after ?? 8 };
    };
    const url = `${baseUrl}/brief/api/v1/projects/${projectId}/events`;
    const client = await FeedClient.open(url, { 'x-test-key': keyId, 'last-event-id': '8' });
    open.push(client);
    expect(client.status).toBe(200);
    expect(await client.closing()).toEqual({ reason: 'lifetime' });
    // The closed event carries no id: an EventSource reconnects with the last event's.
    expect(client.events).toEqual([{ id: undefined, event: 'closed', data: '{"reason":"lifetime"}' }]);

    const before = readsOf(keyId).length;
    const resumed = await FeedClient.open(url, { 'x-test-key': keyId, 'last-event-id': '8' });
    open.push(resumed);
    expect(resumed.status).toBe(200);
    await eventually('the resumed feed reading on after its last event', () =>
      readsOf(keyId)
        .slice(before)
        .some((r) => r.after === 8 && r.waitMs > 0),
    );
  });

  it("keeps a feed open while its caller's check fails to get an answer, and closes it once the caller is refused", async () => {
    const keyId = randomUUID();
    answerEmptyPages(() => false);
    let refused = false;
    rechecks.set(keyId, async () => {
      throw refused ? errors.keyRevoked() : errors.serviceUnavailable('identity');
    });
    const client = await FeedClient.open(`${baseUrl}/checked/api/v1/projects/${projectId}/events`, { 'x-test-key': keyId });
    open.push(client);
    await eventually('several checks without an answer', () => (recheckCount.get(keyId) ?? 0) >= 3);
    expect(client.ended).toBe(false);
    refused = true;
    expect(await client.closing()).toMatchObject({ reason: 'access', code: 'key_revoked' });
  });

  /** A client that asks for the feed and leaves while its first read is still out; answers once it left. */
  async function leaveDuringFirstRead(keyId: string): Promise<void> {
    const leaving = new AbortController();
    const request = fetch(`${baseUrl}/api/v1/projects/${projectId}/events`, { headers: { 'x-test-key': keyId }, signal: leaving.signal }).catch(
      () => undefined,
    );
    await eventually('the first read asked for', () => readsOf(keyId).length === 1);
    leaving.abort();
    await request;
    // The client gives up at once; the server learns it when the closed connection is read.
    await eventually('the server seeing the client leave', () => left.has(keyId));
  }

  /** Reads answer an empty page after a short wait, as a quiet feed's would; those of `hanging` wait for `released` first. */
  function answerEmptyPages(hanging: (read: Read) => boolean) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    answer = async (read) => {
      if (hanging(read)) await released;
      await sleep(Math.min(read.waitMs, 50));
      return { events: [], reset: false, next: 0 };
    };
    return release;
  }

  it('frees the place of a client that left during its first read at once, while the read is still out', async () => {
    const keyId = randomUUID();
    let first = true;
    const release = answerEmptyPages(() => {
      const hang = first;
      first = false;
      return hang;
    });
    try {
      await leaveDuringFirstRead(keyId);
      const feeds = await Promise.all(Array.from({ length: 20 }, () => feed(keyId)));
      expect(feeds.map((f) => f.status)).toEqual(Array(20).fill(200));
    } finally {
      release();
    }
  });

  it('starts no stream for a client that left during its first read: it never counts as an open feed', async () => {
    await eventually('the feeds of earlier tests ended', async () => (await openFeeds()) === 0);
    const gone = randomUUID();
    const release = answerEmptyPages((read) => read.actor.keyId === gone);
    await leaveDuringFirstRead(gone);
    release();
    // The departed client's answer is handled before another feed, opened after it, reads twice.
    const other = randomUUID();
    await feed(other);
    await eventually('another feed following', () => readsOf(other).length >= 2);
    expect(await openFeeds()).toBe(1);
    expect(readsOf(gone)).toHaveLength(1);
  });
});
