import { env } from '@lode/config';
import { Database, databaseSettings, databaseTimeouts } from '@lode/db';
import { busSettings, connectService, type ServiceConnection } from '@lode/bus';
import type { Logger } from '@lode/telemetry';
import { opsSettings, startOpsServer } from './ops-server.ts';
import { onShutdown } from './shutdown.ts';
import { guardUnhandledRejections } from './unhandled-rejections.ts';

/** What every service process reads before its own settings. */
export const serviceProcessSettings = {
  DATABASE_URL: env.url(),
  ...databaseSettings,
  ...busSettings,
  LOG_LEVEL: env.logLevel(),
  ...opsSettings,
};

type ServiceProcessConfig = {
  DATABASE_URL: string;
  LODE_DB_STATEMENT_TIMEOUT_MS: number;
  LODE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
  NATS_URL: string;
  LODE_BUS_NAMESPACE?: string | undefined;
  LODE_BUS_TIMEOUT_MS: number;
  LODE_OPS_PORT: number;
};

export interface ServiceProcessOptions {
  /** The service's name: its NATS connection, queue group and log lines. */
  service: string;
  /** The one Postgres schema it owns. */
  schema: string;
  config: ServiceProcessConfig;
  logger: Logger;
  /** Starts the service on its pool and connection; what it returns stops its own background work. */
  start: (deps: { db: Database } & Pick<ServiceConnection, 'bus' | 'events'>) => Promise<{ stop: () => Promise<void> }>;
}

/**
 * One service as its own process: a pool bound to its schema, one NATS connection, its ops port,
 * and the guard that keeps an unhandled rejection from ending it.
 * The ops port opens first: a process started while NATS is down stays alive, not ready, until it
 * connects; afterwards /readyz fails while NATS is disconnected.
 * On SIGTERM /readyz fails first, then the service's own work stops, the bus drains with in-flight
 * handlers finishing, and the pool closes.
 */
export async function runServiceProcess(options: ServiceProcessOptions): Promise<void> {
  const { service, config, logger } = options;
  guardUnhandledRejections(logger);
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger });
  const db = new Database({ connectionString: config.DATABASE_URL, schema: options.schema, timeouts: databaseTimeouts(config) });
  const { bus, events, close } = await connectService(config, service, logger);
  const running = await options.start({ db, bus, events });
  ops.setReadiness(() => Promise.all([db.ping(), bus.ready()]));
  logger.info(`${service} service ready`);
  onShutdown(
    logger,
    [
      [service, () => running.stop()],
      ['nats', close],
      ['database', () => db.close()],
    ],
    { ops },
  );
}
