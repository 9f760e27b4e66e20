import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import express from 'express';
import { expect, it } from 'vitest';
import { closeServer, listen } from '../src/index.ts';

it('closes a connection that has sent nothing at once, while a request in flight still gets its answer', async () => {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const app = express();
  app.get('/slow', async (_req, res) => {
    await released;
    res.json({ done: true });
  });
  const server = await listen(app, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  const silent = connect(port, '127.0.0.1');
  await once(silent, 'connect');
  const inFlight = fetch(`http://127.0.0.1:${port}/slow`);
  await new Promise<void>((resolve) => server.once('request', () => resolve()));

  const closing = closeServer(server);
  // Left open, the silent connection would hold the close until Node's headers timeout.
  await once(silent, 'close');
  release();
  const answer = await inFlight;
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({ done: true });
  await closing;
});
