import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
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

  it('keeps serving well-formed requests afterwards', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toEqual({ ok: true });
  });
});
