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
    app.use('/api/v1/projects/:projectId', (req, res, next) => {
      const keyId = String(req.get('x-test-key'));
      res.locals.identity = identityOf(keyId);
      res.on('close', () => left.add(keyId));
      next();
    }, eventRoutes(bus, 100));
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
    await eventually('keep-alive comments during failed reads', () => readsOf(keyId).length >= 2 && client.comments.filter((c) => c === 'keep-alive').length >= 2);
    expect(client.events).toEqual([]);
  });

  /** A client that asks for the feed and leaves while its first read is still out; answers once it left. */
  async function leaveDuringFirstRead(keyId: string): Promise<void> {
    const leaving = new AbortController();
    const request = fetch(`${baseUrl}/api/v1/projects/${projectId}/events`, { headers: { 'x-test-key': keyId }, signal: leaving.signal }).catch(() => undefined);
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
