import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A forward proxy that answers every request itself, keeping the request line's target. */
describe('HTTP_PROXY, with Node told to honour it (NODE_USE_ENV_PROXY=1)', () => {
  let proxy: http.Server;
  const targets: string[] = [];
  beforeAll(async () => {
    proxy = http.createServer((req, res) => {
      targets.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"through":"proxy"}');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    process.env.NODE_USE_ENV_PROXY = '1';
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    delete process.env.NODE_USE_ENV_PROXY;
    delete process.env.HTTP_PROXY;
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });

  it('sends the API calls through the proxy', async () => {
    // Loaded now, after the environment is set, as a process started with it loads it.
    const { ApiTransport } = await import('./http.ts');
    const answer = await new ApiTransport({ url: 'http://lode.internal:8080', key: 'lode_x', retry: { attempts: 1 } }).call('GET', '/api/v1/branches');
    expect(answer).toEqual({ through: 'proxy' });
    expect(targets).toEqual(['http://lode.internal:8080/api/v1/branches']);
  });
});
