/**
 * The gateway as its own process (multi-process mode): HTTP in, NATS out. Start with
 * `node --import @lode/telemetry/register services/gateway/src/main.ts`.
 */
import { z } from 'zod';
import { loadConfig } from '@lode/config';
import { createLogger } from '@lode/telemetry';
import { connectNats, NatsBus } from '@lode/bus';
import { createLocalObjectHandler, createLocalStorage, storageSettings, usesS3 } from '@lode/storage';
import { closeServer, exitOnStartupFailure, guardUnhandledRejections, listen, onShutdown, opsSettings, startOpsServer } from '@lode/runtime';
import { createGatewayApp } from './app.ts';
import { gatewayEnvSchema, gatewayTuning } from './config.ts';
import { RedisWriteLimiter } from './ratelimit/redis-limiter.ts';
import { PROJECT_SERVICES } from './wiring.ts';

const logger = createLogger('gateway');
guardUnhandledRejections(logger);

async function main(): Promise<void> {
  const config = loadConfig(z.object({ ...gatewayEnvSchema.shape, ...storageSettings, ...opsSettings }));
  // Up before NATS: a gateway started while NATS is down stays alive, not ready, until it connects.
  const ops = await startOpsServer({ port: config.LODE_OPS_PORT, logger });
  const nc = await connectNats(config.NATS_URL, 'lode-gateway', logger);
  const bus = new NatsBus(nc, logger, { namespace: config.LODE_BUS_NAMESPACE, timeoutMs: config.LODE_BUS_TIMEOUT_MS });
  const limiter = new RedisWriteLimiter(config.REDIS_URL, { logger });

  const { app } = createGatewayApp({
    bus,
    limiter,
    logger,
    adminToken: config.LODE_ADMIN_TOKEN,
    ...gatewayTuning(config),
    services: PROJECT_SERVICES,
    // With S3, clients talk to the bucket; with local blobs, this gateway answers their URLs.
    localObjects: usesS3(config) ? undefined : createLocalObjectHandler(createLocalStorage(config, { gatewayPort: config.PORT })),
    stopping: ops.isStopping,
  });
  const server = await listen(app, config.PORT);
  // Not Redis: the write limit fails open without it (ratelimit/redis-limiter.ts), so a gateway serves.
  ops.setReadiness(() => bus.ready());
  logger.info({ port: config.PORT }, 'gateway listening');

  onShutdown(
    logger,
    [
      ['http', () => closeServer(server)],
      ['bus', () => bus.close()],
      ['nats', () => nc.drain()],
      ['redis', () => limiter.close()],
    ],
    { ops },
  );
}

main().catch(exitOnStartupFailure(logger));
