import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.ts';

/** `pass`: forwarded as is. `unavailable`: answered 503 as S3 answers when overloaded. `slow`: forwarded after `slowMs`. */
export type StorageFaultMode = 'pass' | 'unavailable' | 'slow';

export interface StorageFaultProxy {
  /** http://127.0.0.1:<port>: the S3 endpoint to give the services, so their presigned URLs point here too. */
  readonly url: string;
  readonly mode: StorageFaultMode;
  /** Requests seen in each mode so far. */
  readonly seen: Readonly<Record<StorageFaultMode, number>>;
  setMode(mode: StorageFaultMode, options?: { slowMs?: number }): void;
  close(): Promise<void>;
}

const DEFAULT_SLOW_MS = 15_000;
const S3_UNAVAILABLE =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>';

/**
 * A small HTTP proxy in front of an S3 endpoint whose answers a test switches between normal, 503
 * and slow. Requests are forwarded with their Host header unchanged: a presigned URL (and the SDK's
 * own requests) are signed for the proxy's host, and S3 checks the signature against the Host it
 * receives.
 */
export async function startStorageFaultProxy(target: string): Promise<StorageFaultProxy> {
  const upstream = new URL(target);
  const port = await freePort();
  let mode: StorageFaultMode = 'pass';
  let slowMs = DEFAULT_SLOW_MS;
  const seen: Record<StorageFaultMode, number> = { pass: 0, unavailable: 0, slow: 0 };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const outgoing = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // A client that gives up takes its request to S3 with it.
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  };

  const server = createServer((req, res) => {
    const now = mode;
    seen[now]++;
    if (now === 'unavailable') {
      // Read the body first, so a client still sending gets the answer rather than a reset.
      req.resume();
      req.once('end', () => res.writeHead(503, { 'content-type': 'application/xml', 'retry-after': '1' }).end(S3_UNAVAILABLE));
      return;
    }
    if (now === 'slow') {
      req.pause();
      void delay(slowMs).then(() => (res.destroyed ? undefined : forward(req, res)));
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    seen,
    setMode(next, options = {}) {
      mode = next;
      slowMs = options.slowMs ?? DEFAULT_SLOW_MS;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
