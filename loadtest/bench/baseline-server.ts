/**
 * The servers of the physical baselines, in a process of their own as the gateway and the services
 * are: a bare node:http JSON endpoint, a bare express endpoint and a NATS responder, each answering
 * an identity shaped like validate-key's. Prints `{httpPort, expressPort, subject}` as one JSON line
 * once all three listen; exits on SIGTERM.
 *
 *   node loadtest/bench/baseline-server.ts nats://127.0.0.1:4222
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { connect } from '@nats-io/transport-node';

const identity = {
  keyId: randomUUID(),
  userId: randomUUID(),
  userName: 'Baseline',
  orgId: randomUUID(),
  projectId: randomUUID(),
  role: 'owner',
  deviceId: 'device-baseline',
};

const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const answer = JSON.stringify(identity);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post('/', (_req, res) => {
  res.json(identity);
});

const nc = await connect({ servers: process.argv[2].split(',') });
const subject = `bench.baseline.${randomUUID()}`;
const reply = new TextEncoder().encode(JSON.stringify(identity));
nc.subscribe(subject, {
  callback: (error, msg) => {
    if (!error) msg.respond(reply);
  },
});
await nc.flush();

const listening = (server: http.Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const servers = [bare, http.createServer(app)];
const [httpPort, expressPort] = await Promise.all(servers.map(listening));
process.stdout.write(`${JSON.stringify({ httpPort, expressPort, subject })}\n`);

process.once('SIGTERM', () => {
  for (const server of servers) server.close();
  for (const server of servers) server.closeAllConnections();
  void nc.close().then(() => process.exit(0));
});
