import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '@lode/errors';
import { errorHandler } from './error-handler.ts';

// Every 5xx a fault causes says when to come back. A bus timeout (504: a service died with the
// request, or answered too late) once had no Retry-After, unlike 503.
describe('5xx answers say when to retry', () => {
  let baseUrl: string;
  let close: () => void;

  beforeAll(async () => {
    const app = express();
    app.get('/timeout', () => {
      throw errors.timeout('commit');
    });
    app.get('/unavailable', () => {
      throw errors.serviceUnavailable('commit');
    });
    app.use(errorHandler(pino({ level: 'silent' })));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close?.());

  it.each([
    ['/timeout', 504, 'timeout'],
    ['/unavailable', 503, 'service_unavailable'],
  ])('%s answers %d with Retry-After: 1', async (path, status, code) => {
    const res = await fetch(baseUrl + path);
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({ code, message: expect.any(String), retryAfterSeconds: 1 });
  });
});
