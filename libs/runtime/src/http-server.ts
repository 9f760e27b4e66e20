import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { answerClientErrorsAsJson } from './client-errors.ts';

/** Per server started by listen(): its connections that have not sent a first request yet. */
const awaitingFirstRequest = new WeakMap<Server, Set<Socket>>();

export async function listen(app: Express, port: number, host?: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host ?? '0.0.0.0', (error?: Error) => (error ? reject(error) : resolve(server)));
    const awaiting = new Set<Socket>();
    awaitingFirstRequest.set(server, awaiting);
    server.on('connection', (socket: Socket) => {
      awaiting.add(socket);
      socket.once('close', () => awaiting.delete(socket));
    });
    server.on('request', (req) => awaiting.delete(req.socket));
    // Behind a load balancer, idle keep-alive sockets must outlive the balancer's own timeout.
    server.keepAliveTimeout = 65_000;
    answerClientErrorsAsJson(server);
  });
}

/**
 * Stops accepting connections and waits for in-flight requests to finish. A keep-alive connection
 * whose request ends during the drain turns idle only then (a proxy like nginx keeps them for 60 s),
 * so idle connections are closed again until the server has none left, not once. A connection that
 * has not sent a request yet (opened by a client ahead of one, or left unused) is not idle to Node:
 * it would hold the close until the headers timeout (60 s), so it is closed too, having nothing in flight.
 */
export async function closeServer(server: Server): Promise<void> {
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  try {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      for (const socket of awaitingFirstRequest.get(server) ?? []) socket.destroy();
    });
  } finally {
    clearInterval(sweep);
  }
}
