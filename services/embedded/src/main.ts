/**
 * Everything in one process on embedded defaults: embedded Postgres, the in-process bus, the
 * in-memory rate limiter and blobs on local disk. `npm start` runs this; nothing else is needed.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { env, loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { LocalBus, LocalEvents } from '@lode/bus';
import { createLocalObjectHandler, createLocalStorage, createS3Storage, instrumentStorage, storageSettings, usesS3 } from '@lode/storage';
import {
  closeServer,
  ensurePrivateDirectory,
  exitOnStartupFailure,
  guardUnhandledRejections,
  listen,
  onShutdown,
  opsSettings,
  persistentSecret,
  PRIVATE_DIRECTORY,
  startOpsServer,
  TRAVERSABLE_DIRECTORY,
} from '@lode/runtime';
import { createGatewayApp, gatewaySettings, gatewayTuning, MemoryWriteLimiter, PROJECT_SERVICES } from '@lode/gateway';
import { SERVICES, settingsOf, startInProcess } from '@lode/system';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { bindPort, DEFAULT_OPS_PORT, listenOps, refuseTakenPorts, StartupRefusal } from './ports.ts';

const logger = createLogger('lode');
guardUnhandledRejections(logger);

const schema = z.object({
  ...settingsOf(SERVICES),
  ...gatewaySettings,
  ...storageSettings,
  // Made once and kept in the data directory when not given.
  LODE_CURSOR_SECRET: z.string().min(32).optional(),
  LODE_SECRETS_KEY: z.string().optional(),
  LODE_BUS_TIMEOUT_MS: env.int(30_000, 100),
  ...opsSettings,
  // Unset: the default port when free, else any free one (ports.ts), so a second Lode on one machine needs no more than its own PORT.
  LODE_OPS_PORT: opsSettings.LODE_OPS_PORT.removeDefault().optional(),
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const dataDir = path.resolve(config.LODE_DATA_DIR);
  await refuseTakenPorts(config.PORT, config.LODE_OPS_PORT);
  // Secrets, the database and blobs: no other local user may list or read them. Run as root, the
  // embedded Postgres runs as a user of its own, which must pass through to its directories inside.
  await ensurePrivateDirectory(dataDir, process.getuid?.() === 0 ? TRAVERSABLE_DIRECTORY : PRIVATE_DIRECTORY);
  const postgres = await startEmbeddedPostgres(dataDir, logger);
  const adminToken = config.LODE_ADMIN_TOKEN ?? (await embeddedAdminToken(dataDir));
  const storageSecret = config.LODE_STORAGE_SECRET ?? (await persistentSecret(dataDir, 'storage-secret')).value;
  const cursorSecret = config.LODE_CURSOR_SECRET ?? (await persistentSecret(dataDir, 'cursor-secret')).value;
  // Encrypts webhook secrets at rest: the webhooks service cannot read them, nor start, without it.
  const secretsKey = config.LODE_SECRETS_KEY ?? (await persistentSecret(dataDir, 'secrets-key')).value;

  const bus = new LocalBus(logger, { timeoutMs: config.LODE_BUS_TIMEOUT_MS });
  const events = new LocalEvents(logger);
  const local = usesS3(config) ? undefined : createLocalStorage(config, { secret: storageSecret, gatewayPort: config.PORT });
  const services = await startInProcess({
    connectionString: postgres.url,
    bus,
    events,
    storage: instrumentStorage(local ?? createS3Storage(config)),
    logger,
    // Relays start below, once every consumer is listening and the retained events were replayed.
    environment: { ...process.env, LODE_CURSOR_SECRET: cursorSecret, LODE_SECRETS_KEY: secretsKey, LODE_OUTBOX_RELAY: 'false' },
  });
  // The in-process stream starts empty: events published before a restart but not yet handled by a
  // consumer would be lost, so each retained outbox goes through again (consumers are idempotent).
  for (const relay of services.relays()) {
    const replayed = await relay.replayRetained();
    relay.start();
    logger.info({ replayed }, 'outbox replayed into the in-process event stream');
  }

  const limiter = new MemoryWriteLimiter();
  const ops = await listenOps(config.LODE_OPS_PORT, (port) => startOpsServer({ port, logger, ready: () => services.ping() }));
  const boundOpsPort = (ops.server.address() as AddressInfo).port;
  if (config.LODE_OPS_PORT === undefined && boundOpsPort !== DEFAULT_OPS_PORT) {
    logger.info({ opsPort: boundOpsPort }, `LODE_OPS_PORT is not set and ${DEFAULT_OPS_PORT} is in use: the ops port is ${boundOpsPort}`);
  }
  const { app } = createGatewayApp({
    bus,
    limiter,
    logger,
    adminToken,
    ...gatewayTuning(config),
    services: PROJECT_SERVICES,
    localObjects: local && createLocalObjectHandler(local),
    stopping: ops.isStopping,
  });
  const server = await bindPort('PORT', config.PORT, () => listen(app, config.PORT));
  logger.info({ port: config.PORT, opsPort: boundOpsPort, dataDir }, `Lode listening on http://localhost:${config.PORT}`);

  onShutdown(
    logger,
    [
      ['http', () => closeServer(server)],
      ['services', () => services.stop()],
      ['bus', () => bus.close()],
      ['events', () => events.close()],
      ['limiter', () => limiter.close()],
      ['databases', () => services.closeDatabases()],
      ['postgres', () => postgres.stop()],
    ],
    { ops },
  );
}

/**
 * Made once and kept in the data directory. Printed the first time only to a terminal, so the
 * newcomer can copy it: when stdout is a pipe it goes to a log collector, where a secret must not.
 */
async function embeddedAdminToken(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'admin-token');
  const { value, created } = await persistentSecret(dataDir, 'admin-token');
  if (created && process.stdout.isTTY) process.stdout.write(`\nAdmin token (shown once; also kept in ${file}):\n  ${value}\n\n`);
  else logger.info({ file }, created ? 'admin token created in the data directory' : 'admin token loaded from the data directory');
  return value;
}

main().catch((error: unknown) => {
  if (!(error instanceof StartupRefusal)) return exitOnStartupFailure(logger)(error);
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
