import type { Express } from 'express';
import { LocalBus } from '@lode/bus';
import { createLogger } from '@lode/telemetry';
import { createGatewayApp } from '../src/app.ts';
import { MemoryWriteLimiter } from '../src/ratelimit/memory-limiter.ts';

export const BARE_ADMIN_TOKEN = 'x'.repeat(32);

/**
 * The gateway's express app with nothing behind it (an empty in-process bus), for tests that read
 * what it registers rather than call it. `close` ends its bus.
 */
export function bareGatewayApp(): { app: Express; close: () => Promise<void> } {
  const logger = createLogger('bare-gateway', 'silent');
  const bus = new LocalBus(logger);
  const { app } = createGatewayApp({
    bus,
    limiter: new MemoryWriteLimiter(),
    logger,
    adminToken: BARE_ADMIN_TOKEN,
    defaultWriteLimit: { perSecond: 1, burst: 1 },
    authCacheMs: 1,
    bodyLimit: '1mb',
    services: [],
    localObjects: async () => undefined,
  });
  return { app, close: () => bus.close() };
}
