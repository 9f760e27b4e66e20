import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRefusal, LodeApiError, LodeNetworkError } from './errors.ts';
import { ApiTransport, type RetryEvent } from './http.ts';
import { readText } from './node-http.ts';

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

const PAGE = '<!DOCTYPE HTML>\n<html><body><h1>Error response</h1><p>Error code: 501</p></body></html>';
const html = (status: number, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body: PAGE,
});
const json = (status: number, body: unknown): Answer => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Some web server: it answers each request with the next of the answers it is given, the last one for ever after. */
describe('answers that are not the Lode API', () => {
  let server: http.Server;
  let url: string;
  let answers: Answer[] = [];
  let seen = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      const answer = answers[Math.min(seen++, answers.length - 1)];
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function serve(...given: Answer[]) {
    answers = given;
    seen = 0;
  }
  const call = (retries: RetryEvent[] = []) =>
    new ApiTransport({ url, key: 'lode_x', retry: { attempts: 3 }, onRetry: (e) => retries.push(e) }).call('POST', '/api/v1/auth/validate-key');
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('expected a LodeApiError'),
      (error: unknown) => error as LodeApiError,
    );

  it.each([
    ['an HTML error page', html(501), 501, 'text/html'],
    ['JSON without code and message', json(404, { error: 'Not Found' }), 404, 'application/json'],
    ['an empty body', { status: 404, body: '' }, 404, null],
    ['an HTML page answered 200', html(200), 200, 'text/html'],
  ])('marks %s not_lode_api, naming the URL and status, without the body', async (_, answer, status, contentType) => {
    serve(answer);
    const error = await failure(call());
    expect(error).toBeInstanceOf(LodeApiError);
    expect(error).toMatchObject({ status, code: 'not_lode_api', body: { code: 'not_lode_api', url, contentType } });
    expect(error.message).toBe(`No Lode API answers at ${url} (HTTP ${status}${contentType ? `, ${contentType}` : ''})`);
    expect(JSON.stringify(error.body)).not.toMatch(/DOCTYPE|Error response|Not Found/);
  });

  it('keeps a Lode error as the API gave it', async () => {
    serve(json(401, { code: 'invalid_key', message: 'Invalid API key' }));
    expect(await failure(call())).toMatchObject({ status: 401, code: 'invalid_key', message: 'Invalid API key' });
  });

  it("retries a proxy's HTML 503 after its Retry-After, as any 503", async () => {
    serve(html(503, { 'retry-after': '0' }), html(503, { 'retry-after': '0' }), json(200, { valid: true }));
    const retries: RetryEvent[] = [];
    expect(await call(retries)).toEqual({ valid: true });
    expect(retries.map((r) => [r.reason, r.delayMs])).toEqual([
      ['503 not_lode_api', 0],
      ['503 not_lode_api', 0],
    ]);
  });

  it('does not call a success whose body is not the API a refusal: the request may have done its work', async () => {
    serve(html(200));
    expect(isRefusal(await failure(call()))).toBe(false);
    serve(html(404));
    expect(isRefusal(await failure(call()))).toBe(true);
  });
});

describe('the connection', () => {
  it('gives up a server that cannot be reached after its retries, as a LodeNetworkError with the system code', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const retries: RetryEvent[] = [];
    const transport = new ApiTransport({ url, key: 'lode_x', retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, onRetry: (e) => retries.push(e) });
    const error = await transport.call('POST', '/api/v1/auth/validate-key').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LodeNetworkError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(retries).toHaveLength(2);
  });

  it('decodes a character whose bytes came in two pieces', async () => {
    const body = new PassThrough();
    const bytes = Buffer.from('{"path":"Füße/日本.png"}');
    for (let at = 0; at < bytes.length; at += 1) body.write(bytes.subarray(at, at + 1));
    body.end();
    expect(JSON.parse(await readText(body as unknown as IncomingMessage))).toEqual({ path: 'Füße/日本.png' });
  });
});

describe('what the transport does not retry or follow', () => {
  let server: http.Server;
  let url: string;
  let handle: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => undefined;
  beforeAll(async () => {
    server = http.createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  it("ends with the caller's reason when it aborts while the answer's body arrives", async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    };
    const controller = new AbortController();
    const call = new ApiTransport({ url, key: 'lode_x' }).call('GET', '/slow', undefined, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('user stop');
    setTimeout(() => controller.abort(reason), 50);
    expect(await call.catch((e: unknown) => e)).toBe(reason);
  });

  it('names where a redirect points, and does not follow it with the key', async () => {
    const seen: string[] = [];
    handle = (req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(301, { location: 'https://lode.example.com/api/v1/auth/validate-key' }).end();
    };
    const error = await new ApiTransport({ url, key: 'lode_x' }).call('POST', '/api/v1/auth/validate-key').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 301, code: 'not_lode_api' });
    expect((error as Error).message).toBe(`No Lode API answers at ${url} (HTTP 301, redirecting to https://lode.example.com/api/v1/auth/validate-key)`);
    expect(seen).toEqual(['/api/v1/auth/validate-key']);
  });

  it('throws a URL it cannot send at once, without retries', async () => {
    const retries: RetryEvent[] = [];
    const error = await new ApiTransport({ url: 'http://bad host', key: 'lode_x', onRetry: (e) => retries.push(e) }).call('GET', '/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_INVALID_URL' });
    expect(retries).toEqual([]);
  });

  it('words a refusal by every address of a host, which has no message of its own', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}:80`), { code: 'ECONNREFUSED' });
    const error = new LodeNetworkError(Object.assign(new AggregateError([refused('::1'), refused('127.0.0.1')], ''), { code: 'ECONNREFUSED' }));
    expect(error).toMatchObject({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED ::1:80; connect ECONNREFUSED 127.0.0.1:80' });
  });
});
