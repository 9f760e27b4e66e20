import { once } from 'node:events';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Bus } from '@lode/bus';
import { errors, isAppError } from '@lode/errors';
import { publicEvents, webhooks, type Actor, type ReplyOf } from '@lode/contracts';
import { instruments } from '@lode/telemetry';
import { actorOf, recheckOf, type Recheck } from '../auth/middleware.ts';
import { statusByCode } from '../http/error-status.ts';
import { parse } from '../http/parse.ts';

/** Events per read: a slow client holds at most one page in this process's memory. */
const PAGE = 50;
/** How long a read waits for an event before the next one is asked for. */
const WAIT_MS = 10_000;
/** A client that has not taken a written page within this long is cut: it would pin the page's memory. */
const SLOW_CLIENT_MS = 30_000;
/** After a failed read (a service restarting), the next try comes this much later. */
const RETRY_MS = 1000;
/** What the browser's EventSource waits before reconnecting on its own. */
const RECONNECT_MS = 3000;

/**
 * Feeds one API key (or dashboard session) may hold open on one gateway; one more is 429
 * too_many_feeds. Each open feed keeps a read waiting in the webhooks service and a page in memory
 * here, so a client reconnecting in a loop without closing must not pile them up.
 */
const MAX_FEEDS_PER_KEY = 20;
/**
 * Feeds one user may hold open in one project on one gateway, over all their keys and sessions
 * together: a member may mint keys, so a cap per key alone bounds nothing. Room for a couple of
 * machines at the key's cap.
 */
const MAX_FEEDS_PER_USER = 40;
/** Longest silence on a feed by default (LODE_FEED_HEARTBEAT_MS). */
export const DEFAULT_FEED_HEARTBEAT_MS = 10_000;

/** How an open feed keeps its caller in check over time. */
export interface FeedLifetime {
  /**
   * How often the caller is authenticated again, besides before each page: a key revoked, a session
   * ended or a member removed closes the feed within this time (plus the key cache's lifetime when the
   * change was made through another gateway), even on a feed with nothing to send.
   */
  recheckMs: number;
  /**
   * Longest a feed stays open. The client reconnects with Last-Event-ID and loses nothing, and its
   * credentials are checked afresh; a little less for most feeds (up to a tenth), so feeds opened
   * together, after a gateway restart say, do not all reconnect at the same moment.
   */
  maxMs: number;
}
export const DEFAULT_FEED_LIFETIME: FeedLifetime = { recheckMs: 5_000, maxMs: 3_600_000 };

export const feedQuery = z.object({
  types: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === '' ? null : value.split(',')))
    .pipe(z.array(publicEvents.publicEventTypeSchema).nullable()),
});
const lastEventId = z
  .string()
  .regex(/^\d{1,15}$/, 'must be the id of an event this feed sent')
  .transform(Number);

let openFeeds: ReturnType<ReturnType<typeof instruments>['meter']['createUpDownCounter']> | undefined;
function feedsGauge() {
  openFeeds ??= instruments().meter.createUpDownCounter('lode.events.feeds.open', { description: 'Live event feeds (SSE) open on this gateway' });
  return openFeeds;
}

/**
 * docs/api.md, Live feed: the project's events as Server-Sent Events, mounted under
 * /api/v1/projects/:projectId after auth. Each gateway reads the feed itself from the webhooks
 * service, one page at a time, so any gateway serves any client and a reconnect resumes anywhere.
 */
export function eventRoutes(bus: Bus, heartbeatMs = DEFAULT_FEED_HEARTBEAT_MS, lifetime = DEFAULT_FEED_LIFETIME): Router {
  const router = Router({ mergeParams: true });
  /** Feeds open on this gateway per holder: a key id (a session's id for a session), and a project's user. */
  const feedsByHolder = new Map<string, number>();

  router.get('/events', async (req, res) => {
    // Listened for before anything is awaited: a client gone during the first read is seen, not missed.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const { types } = parse(feedQuery, req.query, 'query');
    const resumeFrom = req.get('last-event-id');
    const after = resumeFrom === undefined ? null : parse(lastEventId, resumeFrom, 'Last-Event-ID header');
    const actor = actorOf(res);
    const recheck = recheckOf(res);
    const holders = [
      { holder: `key:${actor.keyId}`, max: MAX_FEEDS_PER_KEY, per: 'key' as const },
      { holder: `user:${actor.projectId}:${actor.userId}`, max: MAX_FEEDS_PER_USER, per: 'user' as const },
    ];
    for (const { holder, max, per } of holders) if ((feedsByHolder.get(holder) ?? 0) >= max) throw errors.tooManyFeeds(max, per);
    for (const { holder } of holders) feedsByHolder.set(holder, (feedsByHolder.get(holder) ?? 0) + 1);
    // Freed when the client leaves, not when the loop below notices (after the read in progress).
    res.once('close', () => {
      for (const { holder } of holders) {
        const left = (feedsByHolder.get(holder) ?? 1) - 1;
        if (left === 0) feedsByHolder.delete(holder);
        else feedsByHolder.set(holder, left);
      }
    });
    // The first read answers before the stream starts, so a refusal is an ordinary JSON error.
    const first = await bus.call(webhooks.readFeed, { actor, after, types, limit: PAGE, waitMs: 0 });
    if (gone.signal.aborted) return;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    const stream = new FeedStream(res, heartbeatMs);
    stream.write(`retry: ${RECONNECT_MS}\n\n`);
    const caller = new FeedCaller(recheck, stream, lifetime);
    const gauge = feedsGauge();
    gauge.add(1);
    try {
      await follow(bus, req, stream, caller, { actor, types }, first, gone.signal);
    } finally {
      caller.stop();
      gauge.add(-1);
      stream.end();
    }
  });

  return router;
}

/**
 * A feed's response, written only through here, with its heartbeat: a `: keep-alive` comment after
 * `heartbeatMs` without a write, whatever the reads are doing (waiting, failing while the webhooks
 * service restarts, retrying), since proxies and load balancers close a response silent for long.
 */
class FeedStream {
  readonly res: Response;
  readonly #heartbeat: NodeJS.Timeout;

  constructor(res: Response, heartbeatMs: number) {
    this.res = res;
    this.#heartbeat = setTimeout(() => this.write(': keep-alive\n\n'), heartbeatMs);
  }

  /** Writes and restarts the heartbeat's countdown (refresh re-arms a timer that has fired, too). */
  write(text: string): boolean {
    // A client that just left, or a feed already closed: a write now would fail.
    if (this.res.destroyed || this.res.writableEnded) return false;
    const flushed = this.res.write(text);
    this.#heartbeat.refresh();
    return flushed;
  }

  end(): void {
    clearTimeout(this.#heartbeat);
    if (!this.res.writableEnded) this.res.end();
  }
}

/** Why the server closed a feed, its last event (`event: closed`, no id, so Last-Event-ID stays the last event's). */
type Closing = { reason: 'lifetime' } | { reason: 'access'; code: string; message: string };

/**
 * Whether an error of the caller's authentication is a refusal (the key revoked or unknown, the
 * session ended, the member removed), as opposed to the identity service failing to answer: a feed
 * closes on the first, and keeps going and asks again on the second.
 */
function refusesAccess(error: unknown): error is Error & { code: string } {
  if (!isAppError(error)) return false;
  const status = statusByCode[error.code];
  return status === 401 || status === 403 || status === 404;
}

/**
 * The caller of one open feed, authenticated again every `recheckMs` and before each page, and the
 * feed's maximum lifetime: either closes the feed with a last `closed` event saying why.
 */
class FeedCaller {
  readonly #recheck: Recheck;
  readonly #stream: FeedStream;
  readonly #tick: NodeJS.Timeout;
  readonly #expiry: NodeJS.Timeout;
  #closed = false;

  constructor(recheck: Recheck, stream: FeedStream, lifetime: FeedLifetime) {
    this.#recheck = recheck;
    this.#stream = stream;
    // Re-armed only once a check is over, so a slow identity service never has checks piling up.
    this.#tick = setTimeout(() => void this.verify().then((open) => open && this.#tick.refresh()), lifetime.recheckMs);
    this.#expiry = setTimeout(() => this.#close({ reason: 'lifetime' }), lifetime.maxMs * (1 - Math.random() / 10));
  }

  /** Authenticates the caller again; false once the feed is closed (by this check or before). Never throws. */
  async verify(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      await this.#recheck();
    } catch (error) {
      if (refusesAccess(error)) this.#close({ reason: 'access', code: error.code, message: error.message });
    }
    return !this.#closed;
  }

  stop(): void {
    clearTimeout(this.#tick);
    clearTimeout(this.#expiry);
  }

  /** Ends the response: the client's close is what ends the loop reading for it. */
  #close(closing: Closing): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stop();
    this.#stream.write(`event: closed\ndata: ${JSON.stringify(closing)}\n\n`);
    this.#stream.end();
  }
}

type Page = ReplyOf<typeof webhooks.readFeed>;

/** Writes pages until the client leaves, is too slow, loses access, or this gateway shuts down. Never throws. */
async function follow(
  bus: Bus,
  req: Request,
  stream: FeedStream,
  caller: FeedCaller,
  feed: { actor: Actor; types: publicEvents.PublicEventType[] | null },
  first: Page,
  gone: AbortSignal,
): Promise<void> {
  const server = (req.socket as { server?: Server }).server;
  let page: Page | undefined = first;
  let next = first.next;
  while (!gone.aborted && server?.listening !== false) {
    if (page) {
      // Nothing is sent to a caller who lost access since the last check.
      if ((page.events.length > 0 || page.reset) && !(await caller.verify())) return;
      if (!(await writePage(stream, page, gone))) return;
      next = page.next;
    }
    try {
      page = await bus.call(webhooks.readFeed, { ...feed, after: next, limit: PAGE, waitMs: WAIT_MS });
    } catch {
      page = undefined;
      await sleep(RETRY_MS, undefined, { signal: gone }).catch(() => undefined);
    }
  }
}

/** Writes one page (nothing when it is empty); false if the client could not take it in time. */
async function writePage(stream: FeedStream, page: Page, gone: AbortSignal): Promise<boolean> {
  let text = '';
  if (page.reset) text += `id: ${page.next}\nevent: reset\ndata: ${JSON.stringify({ next: page.next })}\n\n`;
  for (const { position, event } of page.events) text += `id: ${position}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  if (text === '' || stream.write(text)) return true;
  const waiting = new AbortController();
  const stop = () => waiting.abort();
  gone.addEventListener('abort', stop, { once: true });
  try {
    const drained = await Promise.race([
      once(stream.res, 'drain', { signal: waiting.signal }).then(() => true),
      sleep(SLOW_CLIENT_MS, false, { signal: waiting.signal }),
    ]);
    if (!drained) stream.res.destroy();
    return drained;
  } catch {
    return false; // the client left
  } finally {
    waiting.abort();
    gone.removeEventListener('abort', stop);
  }
}
