import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll } from 'vitest';

export interface Received {
  id: string;
  type: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** What the receiver answered. */
  status: number;
}

/** What to answer a request: a status and headers, or `hang` to never answer. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A webhook endpoint on loopback, as a user would write it: each request is verified with the
 * standardwebhooks library (a bad signature answers 401), then answered as `answer` says.
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly refusedSignatures: string[] = [];
  answer: (request: { id: string; attempt: number }) => Answer = () => ({ status: 204 });
  secret = '';
  /** Requests left unanswered ('hang') and still open; the most open at once; those the sender gave up on. */
  hanging = 0;
  maxHanging = 0;
  abandoned = 0;
  readonly #server: Server;
  readonly #attempts = new Map<string, number>();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let event: { type: string };
        try {
          event = new Webhook(receiver.secret).verify(body, req.headers as Record<string, string>) as { type: string };
        } catch (error) {
          receiver.refusedSignatures.push((error as Error).message);
          res.writeHead(401).end();
          return;
        }
        const id = String(req.headers['webhook-id']);
        const attempt = (receiver.#attempts.get(id) ?? 0) + 1;
        receiver.#attempts.set(id, attempt);
        const answer = receiver.answer({ id, attempt });
        if (answer === 'hang') {
          receiver.hanging += 1;
          receiver.maxHanging = Math.max(receiver.maxHanging, receiver.hanging);
          res.on('close', () => {
            receiver.hanging -= 1;
            receiver.abandoned += 1;
          });
          return;
        }
        receiver.received.push({ id, type: event.type, body, headers: req.headers, status: answer.status });
        res.writeHead(answer.status, answer.headers).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  /** Requests answered 2xx, by event type. */
  delivered(type?: string): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300 && (type === undefined || r.type === type));
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * For the enclosing describe: a stack from `startStack` and a receiver, started before its tests and
 * stopped after them (the receiver first). Read `stack` and `receiver` inside the tests.
 */
export function withReceiver<S extends { stop(): Promise<void> }>(startStack: () => Promise<S>): { readonly stack: S; readonly receiver: Receiver } {
  const started = {} as { stack: S; receiver: Receiver };
  beforeAll(async () => {
    started.stack = await startStack();
    started.receiver = await Receiver.start();
  });
  afterAll(async () => {
    await started.receiver?.stop();
    await started.stack?.stop();
  });
  return started;
}

/** Polls until `check` holds; fails with `what` after a deadline generous enough for a loaded machine. */
export async function eventually<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, deadlineMs = 60_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
