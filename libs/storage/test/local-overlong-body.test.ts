import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { closeServer, listen } from '@lode/runtime';
import { describeContent } from '@lode/testkit';
import { createLocalObjectHandler, LocalBlobStorage } from '../src/index.ts';

/** What a client that keeps sending while it reads gets back: the status and body it read, or its transport error. */
interface Answer {
  status?: number;
  body?: string;
  error?: string;
}

/**
 * PUTs `length` bytes in 1 MiB writes, reading the answer as it comes, as an upload client does.
 * node:http sends whatever it is given, even past the Content-Length in `headers`.
 */
function putLonger(url: string, headers: Record<string, string>, length: number): Promise<Answer> {
  return new Promise((resolve) => {
    let answer: Answer | undefined;
    const req = httpRequest(url, { method: 'PUT', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        answer = { status: res.statusCode, body };
        resolve(answer);
      });
    });
    req.on('error', (error) => resolve(answer ?? { error: (error as NodeJS.ErrnoException).code ?? error.message }));
    const piece = Buffer.alloc(1024 * 1024);
    let sent = 0;
    const writeMore = () => {
      while (sent < length) {
        const n = Math.min(piece.length, length - sent);
        sent += n;
        const last = sent === length;
        const more = last ? (req.end(piece.subarray(0, n)), true) : req.write(piece.subarray(0, n));
        if (!more) return void req.once('drain', writeMore);
      }
    };
    writeMore();
  });
}

describe('local storage driver: a PUT whose body runs past its signed length', () => {
  let dir: string;
  let server: Server;
  let storage: LocalBlobStorage;
  let handle: ReturnType<typeof createLocalObjectHandler>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lode-local-long-'));
    // Served as the gateway serves it: the runtime's HTTP server, which answers what its parser refuses.
    const app = express();
    app.use((req, res) => void handle(req, res));
    server = await listen(app, 0, '127.0.0.1');
    const { port } = server.address() as { port: number };
    storage = new LocalBlobStorage({ dir, secret: 's'.repeat(40), publicUrl: `http://127.0.0.1:${port}` });
    await storage.ensureReady();
    handle = createLocalObjectHandler(storage);
  });
  afterAll(async () => {
    await closeServer(server);
    await rm(dir, { recursive: true, force: true });
  });

  let counter = 0;
  const MiB = 1024 * 1024;
  const overruns = [
    ['1 byte', 1],
    ['1 MiB', MiB],
    ['64 MiB', 64 * MiB],
  ] as const;

  const presign = async () => {
    const bytes = randomBytes(1000);
    const key = `p/test/u/long${++counter}`;
    return { key, ...(await storage.presignPut({ key, ...describeContent(bytes), expiresInSeconds: 60 })) };
  };

  it.each(overruns)('answers 403 as JSON to a client declaring and sending %s more than signed', async (_, over) => {
    const put = await presign();
    const answer = await putLonger(put.url, { ...put.headers, 'Content-Length': String(1000 + over) }, 1000 + over);
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body ?? '')).toMatchObject({ code: 'signature_mismatch' });
    expect(await storage.head(put.key)).toBeNull();
  });

  it.each(overruns)('answers its refusal as JSON to a client sending %s past the signed Content-Length', async (_, over) => {
    const put = await presign();
    // The signed Content-Length, then other bytes than were signed, and more of them.
    const answer = await putLonger(put.url, put.headers, 1000 + over);
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body ?? '')).toMatchObject({ code: 'bad_digest' });
    expect(await storage.head(put.key)).toBeNull();
  });
});
