import { once } from 'node:events';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Bus } from '@lode/bus';
import { publicEvents, webhooks, type Actor, type ReplyOf } from '@lode/contracts';
import { instruments } from '@lode/telemetry';
import { actorOf } from '../auth/middleware.ts';
import { parse } from '../http/parse.ts';

/** Events per read: a slow client holds at most one page in this process's memory. */
const PAGE = 50;
/** How long a read waits for an event; a read that found none is followed by a heartbeat comment. */
const WAIT_MS = 10_000;
/** A client that has not taken a written page within this long is cut: it would pin the page's memory. */
const SLOW_CLIENT_MS = 30_000;
/** After a failed read (a service restarting), the next try comes this much later. */
const RETRY_MS = 1000;
/** What the browser's EventSource waits before reconnecting on its own. */
const RECONNECT_MS = 3000;

export const feedQuery = z.object({
  types: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === '' ? null : value.split(',')))
    .pipe(z.array(publicEvents.publicEventTypeSchema).nullable()),
});
const lastEventId = z.string().regex(/^\d{1,15}$/, 'must be the id of an event this feed sent').transform(Number);

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
export function eventRoutes(bus: Bus): Router {
  const router = Router({ mergeParams: true });

  router.get('/events', async (req, res) => {
    const { types } = parse(feedQuery, req.query, 'query');
    const resumeFrom = req.get('last-event-id');
    const after = resumeFrom === undefined ? null : parse(lastEventId, resumeFrom, 'Last-Event-ID header');
    const actor = actorOf(res);
    // The first read answers before the stream starts, so a refusal is an ordinary JSON error.
    const first = await bus.call(webhooks.readFeed, { actor, after, types, limit: PAGE, waitMs: 0 });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${RECONNECT_MS}\n\n`);
    const gauge = feedsGauge();
    gauge.add(1);
    try {
      await follow(bus, req, res, { actor, types }, first);
    } finally {
      gauge.add(-1);
      if (!res.writableEnded) res.end();
    }
  });

  return router;
}

type Page = ReplyOf<typeof webhooks.readFeed>;

/** Writes pages until the client leaves, is too slow, or this gateway shuts down. Never throws. */
async function follow(bus: Bus, req: Request, res: Response, feed: { actor: Actor; types: publicEvents.PublicEventType[] | null }, first: Page): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const server = (req.socket as { server?: Server }).server;
  let page: Page | undefined = first;
  let next = first.next;
  while (!gone.signal.aborted && server?.listening !== false) {
    if (page) {
      if (!(await writePage(res, page, gone.signal))) return;
      next = page.next;
    }
    try {
      page = await bus.call(webhooks.readFeed, { ...feed, after: next, limit: PAGE, waitMs: WAIT_MS });
    } catch {
      page = undefined;
      await sleep(RETRY_MS, undefined, { signal: gone.signal }).catch(() => undefined);
    }
  }
}

/** Writes one page (a heartbeat when empty); false if the client could not take it in time. */
async function writePage(res: Response, page: Page, gone: AbortSignal): Promise<boolean> {
  let text = '';
  if (page.reset) text += `id: ${page.next}\nevent: reset\ndata: ${JSON.stringify({ next: page.next })}\n\n`;
  for (const { position, event } of page.events) text += `id: ${position}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  if (text === '') text = ': keep-alive\n\n';
  if (res.write(text)) return true;
  const waiting = new AbortController();
  const stop = () => waiting.abort();
  gone.addEventListener('abort', stop, { once: true });
  try {
    const drained = await Promise.race([
      once(res, 'drain', { signal: waiting.signal }).then(() => true),
      sleep(SLOW_CLIENT_MS, false, { signal: waiting.signal }),
    ]);
    if (!drained) res.destroy();
    return drained;
  } catch {
    return false; // the client left
  } finally {
    waiting.abort();
    gone.removeEventListener('abort', stop);
  }
}
