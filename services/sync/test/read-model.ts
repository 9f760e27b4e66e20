import { commit } from '@lode/contracts';
import { LocalBus, type EventStream } from '@lode/bus';
import { Database } from '@lode/db';
import { closeServer, listen } from '@lode/runtime';
import { createLogger } from '@lode/telemetry';
import { createGatewayApp, IDENTITY_SCHEMA, MemoryWriteLimiter } from '@lode/gateway';
import { ApiClient, freePort, type SeededProject } from '@lode/testkit';
import type { TestStack } from '@lode/system/testing';
import { startSyncService } from '../src/index.ts';

export interface ReadModelNode {
  /** The project's key against this node's gateway. */
  api(p: SeededProject): ApiClient;
  db: Database;
  stop(): Promise<void>;
}

/**
 * A second sync service beside the stack's, as an operator would run a rebuild: its own schema and
 * consumer name on the stack's event stream, answering through a gateway of its own. Only sync is
 * served there; its question for the latest sequence number goes to the stack's commit service.
 */
export async function startReadModelNode(
  stack: TestStack,
  options: { schema: string; consumer: string; events?: EventStream; catchUpMs?: number },
): Promise<ReadModelNode> {
  const logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const db = new Database({ connectionString: stack.databaseUrl, schema: options.schema, max: 5 });
  const identityDb = new Database({ connectionString: stack.databaseUrl, schema: IDENTITY_SCHEMA, max: 2 });
  const bus = new LocalBus(logger);
  bus.serve(commit.latestSequence, (request) => stack.bus.call(commit.latestSequence, request));
  const sync = await startSyncService({ db, bus, events: options.events ?? stack.events, logger, catchUpMs: options.catchUpMs ?? 30_000, consumerName: options.consumer });
  const { app } = createGatewayApp({
    db: identityDb,
    bus,
    limiter: new MemoryWriteLimiter(),
    logger,
    adminToken: stack.adminToken,
    defaultWriteLimit: { perSecond: 10_000, burst: 10_000 },
    authCacheMs: 5000,
    bodyLimit: '16mb',
    services: ['sync'],
  });
  const port = await freePort();
  const server = await listen(app, port, '127.0.0.1');
  return {
    api: (p) => new ApiClient(`http://127.0.0.1:${port}`, { authorization: `Bearer ${p.key}`, 'x-device-id': p.deviceId }),
    db,
    async stop() {
      await closeServer(server);
      await sync.stop();
      await bus.close();
      await Promise.all([db.close(), identityDb.close()]);
    },
  };
}
