import type { Server } from 'node:http';
import type { Express } from 'express';
import { answerClientErrorsAsJson } from './client-errors.ts';

export async function listen(app: Express, port: number, host?: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host ?? '0.0.0.0', (error?: Error) => (error ? reject(error) : resolve(server)));
    // Behind a load balancer, idle keep-alive sockets must outlive the balancer's own timeout.
    server.keepAliveTimeout = 65_000;
    answerClientErrorsAsJson(server);
  });
}

/**
 * Stops accepting connections and waits for in-flight requests to finish. A keep-alive connection
 * whose request ends during the drain turns idle only then (a proxy like nginx keeps them for 60 s),
 * so idle connections are closed again until the server has none left, not once.
 */
export async function closeServer(server: Server): Promise<void> {
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  try {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  } finally {
    clearInterval(sweep);
  }
}
