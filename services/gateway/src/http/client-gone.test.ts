import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Response } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorHandler } from './error-handler.ts';

/** Resolves once the response's connection is gone (the client hung up). */
const closed = (res: Response) => new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('close', () => resolve())));

/** Sends a request, waits until `ready` says the server has it, then hangs up. */
function hangUpAfter(url: string, ready: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST' });
    req.on('error', () => resolve());
    req.on('response', (res) => {
      // Take the first bytes of a streamed body, then hang up mid-stream.
      res.once('data', () => req.destroy());
      res.on('error', () => resolve());
      res.on('close', () => resolve());
    });
    req.end();
    void ready.then(() => req.destroy());
  });
}

// A client that aborts a streamed response (sync) is no fault of the gateway's: it once logged an ERROR.
describe('a client that hangs up', () => {
  const lines: { level: number; msg: string }[] = [];
  const handled: (() => void)[] = [];
  const arrived: (() => void)[] = [];
  let baseUrl: string;
  let close: () => void;

  const next = (queue: (() => void)[]) => new Promise<void>((resolve) => queue.push(resolve));

  beforeAll(async () => {
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const app = express();
    // Before its answer is ready: the pipe starts on a response whose client has gone.
    app.post('/before', async (_req, res) => {
      arrived.shift()?.();
      await closed(res);
      try {
        await pipeline(Readable.from(['{"files":[]}']), res);
      } finally {
        handled.shift()?.();
      }
    });
    // Midway through a body streamed page by page, as sync's remote-only pages are.
    app.post('/midway', async (_req, res) => {
      res.type('application/json');
      async function* pages() {
        yield '{"files":[';
        for (;;) {
          yield `"${'x'.repeat(64 * 1024)}",`;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      try {
        await pipeline(Readable.from(pages()), res);
      } finally {
        handled.shift()?.();
      }
    });
    app.use(errorHandler(logger));
    const server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close?.());

  const warningsAndErrors = () => lines.filter((line) => line.level >= 40);

  beforeEach(() => {
    lines.length = 0;
  });

  it('before the answer is ready: nothing is logged as an error or a warning', async () => {
    const done = next(handled);
    await hangUpAfter(`${baseUrl}/before`, next(arrived));
    await done;
    // The error handler runs after the route's promise settles.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warningsAndErrors()).toEqual([]);
  });

  it('midway through a streamed body: the stream stops and nothing is logged as an error or a warning', async () => {
    const done = next(handled);
    await hangUpAfter(`${baseUrl}/midway`, new Promise(() => {}));
    await done;
    await new Promise((resolve) => setImmediate(resolve));
    expect(warningsAndErrors()).toEqual([]);
  });
});
