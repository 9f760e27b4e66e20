import type { Server } from 'node:http';
import type { Express } from 'express';

export async function listen(app: Express, port: number, host?: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host ?? '0.0.0.0', (error?: Error) => (error ? reject(error) : resolve(server)));
    // Behind a load balancer, idle keep-alive sockets must outlive the balancer's own timeout.
    server.keepAliveTimeout = 65_000;
  });
}

/** Stops accepting connections and waits for in-flight requests to finish. */
export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
