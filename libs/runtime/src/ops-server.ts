import { createServer, type Server } from 'node:http';
import { env } from '@lode/config';
import { serveMetrics } from '@lode/telemetry/metrics-sdk';
import type { Logger } from '@lode/telemetry';
import { answerClientErrorsAsJson } from './client-errors.ts';

export interface OpsServer {
  /** /readyz answers 503 from now on, so the orchestrator stops routing before the process drains. */
  markStopping: () => void;
  isStopping: () => boolean;
  /** What /readyz checks from now on; until a process sets it (it may still be waiting for NATS), /readyz answers 503 `starting`. */
  setReadiness: (ready: () => Promise<unknown>) => void;
  close(): Promise<void>;
}

/**
 * The operator's port, apart from the API: /healthz (the process is alive), /readyz (`ready`
 * resolves: its database and NATS answer) and /metrics (Prometheus). Kept off the public port so an
 * Ingress never exposes metrics, and so a service with no HTTP API of its own can still be probed.
 */
export async function startOpsServer(options: {
  port: number;
  host?: string;
  ready?: () => Promise<unknown>;
  logger: Logger;
}): Promise<OpsServer & { server: Server }> {
  let stopping = false;
  let ready = options.ready;
  const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });
  const server = createServer((req, res) => {
    const reply = ({ status, body }: { status: number; body: string }) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    const path = req.url?.split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(json(405, { message: 'Only GET is served here', code: 'method_not_allowed' }));
    switch (path) {
      case '/metrics':
        return serveMetrics(req, res);
      case '/healthz':
        return reply(json(200, { status: 'ok' }));
      case '/readyz':
        if (stopping) return reply(json(503, { status: 'stopping' }));
        if (!ready) return reply(json(503, { status: 'starting' }));
        return void ready().then(
          () => reply(json(200, { status: 'ready' })),
          (error: unknown) => {
            options.logger.warn({ err: error }, 'not ready');
            reply(json(503, { status: 'unavailable', message: (error as Error).message }));
          },
        );
      default:
        return reply(json(404, { message: 'Served here: /healthz, /readyz, /metrics', code: 'not_found' }));
    }
  });
  answerClientErrorsAsJson(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    server,
    markStopping: () => {
      stopping = true;
    },
    isStopping: () => stopping,
    setReadiness: (check) => {
      ready = check;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** Every process's ops port; in one-process-per-service mode on one host each needs its own. */
export const opsSettings = { LODE_OPS_PORT: env.port(9464) };
