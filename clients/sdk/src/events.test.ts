import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LodeClient } from './client.ts';
import { LodeApiError } from './errors.ts';
import type { FeedMessage } from './events.ts';

const PROJECT = '00000000-0000-4000-8000-000000000001';
const envelope = (type: string) => ({ id: `event-${type}`, type, projectId: PROJECT, occurredAt: '2026-11-24T01:00:00.000Z', data: {} });

/** A feed server answering its nth connection with `answers[n]`, keeping each request's headers. */
async function feedServer(answers: ((res: ServerResponse) => void)[]) {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    answers[Math.min(requests.length, answers.length) - 1](res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new LodeClient({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key: 'lode_test',
    projectId: PROJECT,
    retry: { attempts: 1 },
  });
  return {
    client,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const stream = (res: ServerResponse, text: string, end: boolean) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(text);
  if (end) res.end();
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('the live feed', () => {
  it('reads events, resets and multi-line data (LF or CRLF), and reconnects with Last-Event-ID after the connection ends', async () => {
    const feed = await feedServer([
      (res) => stream(res, `retry: 5\n\n: keep-alive\n\nid: 1\r\nevent: lock.acquired\r\ndata: ${JSON.stringify(envelope('lock.acquired'))}\r\n\r\n`, true),
      (res) => {
        const [head, tail] = JSON.stringify(envelope('lock.released')).split(',"type"');
        stream(res, `id: 7\nevent: reset\ndata: {"next":7}\n\nid: 8\nevent: lock.released\ndata: ${head}\ndata: ,"type"${tail}\n\n`, false);
      },
    ]);
    close = feed.close;
    const messages: FeedMessage[] = [];
    for await (const message of feed.client.events({ types: ['lock.acquired', 'lock.released'] })) {
      messages.push(message);
      if (messages.length === 3) break;
    }
    expect(messages).toEqual([
      { kind: 'event', id: 1, event: envelope('lock.acquired') },
      { kind: 'reset', id: 7 },
      { kind: 'event', id: 8, event: envelope('lock.released') },
    ]);
    expect(feed.requests.map((r) => [r.url, r.headers['last-event-id'], r.headers.accept])).toEqual([
      [`/api/v1/projects/${PROJECT}/events?types=lock.acquired%2Clock.released`, undefined, 'text/event-stream'],
      [`/api/v1/projects/${PROJECT}/events?types=lock.acquired%2Clock.released`, '1', 'text/event-stream'],
    ]);
  });

  it('follows again a connection cut in the middle of a message, from the last message whole', async () => {
    const cut = `id: 2\nevent: lock.acquired\ndata: ${JSON.stringify(envelope('lock.acquired')).slice(0, 20)}`;
    const feed = await feedServer([
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`retry: 5\n\nid: 1\nevent: lock.acquired\ndata: ${JSON.stringify(envelope('lock.acquired'))}\n\n${cut}`, () => res.socket?.destroy());
      },
      (res) => stream(res, `id: 2\nevent: lock.released\ndata: ${JSON.stringify(envelope('lock.released'))}\n\n`, false),
    ]);
    close = feed.close;
    const messages: FeedMessage[] = [];
    for await (const message of feed.client.events()) {
      messages.push(message);
      if (messages.length === 2) break;
    }
    expect(messages).toEqual([
      { kind: 'event', id: 1, event: envelope('lock.acquired') },
      { kind: 'event', id: 2, event: envelope('lock.released') },
    ]);
    expect(feed.requests.map((r) => r.headers['last-event-id'])).toEqual([undefined, '1']);
  });

  it("ends with the caller's reason when the caller stops it in the middle of a message", async () => {
    const feed = await feedServer([(res) => stream(res, `id: 1\nevent: lock.acquired\ndata: {"id":`, false)]);
    close = feed.close;
    const controller = new AbortController();
    const reason = new Error('user stop');
    const next = feed.client.events({ signal: controller.signal }).next();
    // Stopped once the server has the request and has begun its answer.
    while (feed.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    expect(await next.catch((e: unknown) => e)).toBe(reason);
  });

  it('starts after the position given, and ends with the error of a refusal', async () => {
    const feed = await feedServer([
      (res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'validation_failed', message: 'Last-Event-ID header: must be the id of an event this feed sent' }));
      },
    ]);
    close = feed.close;
    const error = await feed.client
      .events({ lastEventId: 42 })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LodeApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(feed.requests[0].headers['last-event-id']).toBe('42');
  });
});
