import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { request as httpRequest, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../src/index.ts';

/** Sends raw bytes and reads everything the server answers until it closes the connection. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

/**
 * PUTs `declared` bytes as Content-Length says, then `over` bytes more, with node:http (which sends
 * whatever it is given) reading the answer while it writes, as an upload client does.
 */
function sendLonger(port: number, declared: number, over: number): Promise<{ status?: number; body?: unknown; error?: string }> {
  return new Promise((resolve) => {
    let answered: { status?: number; body?: unknown } | undefined;
    const req = httpRequest({ host: '127.0.0.1', port, path: '/slow', method: 'PUT', headers: { 'Content-Length': String(declared) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        answered = { status: res.statusCode, body: JSON.parse(text) as unknown };
        resolve(answered);
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(answered ?? { error: error.code ?? error.message }));
    const piece = Buffer.alloc(1024 * 1024);
    let left = declared + over;
    const more = () => {
      while (left > 0) {
        const n = Math.min(left, piece.length);
        left -= n;
        if (left === 0) return void req.end(piece.subarray(0, n));
        if (!req.write(piece.subarray(0, n))) return void req.once('drain', more);
      }
    };
    more();
  });
}

function parse(answer: string) {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), contentType: /content-type: ([^\r]+)/i.exec(head)?.[1], body: JSON.parse(body) as unknown };
}

describe('requests the HTTP parser refuses', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const app = express();
    app.get('/', (_req, res) => res.json({ ok: true }));
    // Answers once the whole body is read, a while after it, as an upload that is hashed and stored.
    app.put('/slow', (req, res) => {
      let size = 0;
      req.on('data', (chunk: Buffer) => (size += chunk.length));
      req.on('end', () => setTimeout(() => res.status(400).json({ code: 'bad_digest', message: `read ${size} bytes` }), 200));
    });
    server = await listen(app, 0, '127.0.0.1');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => closeServer(server));

  it('answers a request line over the header limit with a JSON 431', async () => {
    const answer = parse(await exchange(port, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(answer).toEqual({ status: 431, contentType: 'application/json', body: { code: 'headers_too_large', message: expect.any(String) } });
  });

  it('answers a HEAD over the limit with the status and headers alone, as HEAD must be answered', async () => {
    const answer = await exchange(port, `HEAD /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
  });

  it('answers bytes that are not HTTP with a JSON 400', async () => {
    const answer = parse(await exchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(answer).toEqual({ status: 400, contentType: 'application/json', body: { code: 'validation_failed', message: expect.any(String) } });
  });

  it.each([
    ['1 MiB', 1024 * 1024],
    ['64 MiB', 64 * 1024 * 1024],
  ])('answers a request whose body runs %s past its Content-Length, to a client still sending', async (_, over) => {
    const answer = await sendLonger(port, 1000, over);
    expect(answer.error).toBeUndefined();
    expect(answer).toMatchObject({ status: 400, body: { code: 'bad_digest', message: 'read 1000 bytes' } });
  });

  it('answers bytes that are not HTTP to a client still sending them, instead of resetting it', async () => {
    const answer = await new Promise<{ text: string; error?: string }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve({ text }));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve({ text, error: error.code }));
      socket.write('NOT HTTP AT ALL\r\n\r\n');
      const junk = Buffer.alloc(1024 * 1024, 'x');
      let left = 8;
      const more = () => {
        while (left-- > 0) if (!socket.write(junk)) return void socket.once('drain', more);
        socket.end();
      };
      setTimeout(more, 50);
    });
    expect(answer.error).toBeUndefined();
    expect(parse(answer.text)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('keeps serving well-formed requests afterwards', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toEqual({ ok: true });
  });
});
