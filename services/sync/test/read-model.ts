import { commit, identity } from '@lode/contracts';
import { LocalBus, type EventStream } from '@lode/bus';
import { Database } from '@lode/db';
import { closeServer, listen } from '@lode/runtime';
import { createGatewayApp, MemoryWriteLimiter } from '@lode/gateway';
import { ApiClient, freePort, testLogger, type SeededProject } from '@lode/testkit';
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
 * served there; what the node asks of other services (its gateway's key lookups, its sync's latest
 * sequence number) goes to the stack's, over the stack's bus.
 */
export async function startReadModelNode(
  stack: TestStack,
  options: { schema: string; consumer: string; events?: EventStream; catchUpMs?: number },
): Promise<ReadModelNode> {
  const logger = testLogger('test');
  const db = new Database({ connectionString: stack.databaseUrl, schema: options.schema, max: 5 });
  const bus = new LocalBus(logger);
  bus.serve(identity.resolveKey, (request) => stack.bus.call(identity.resolveKey, request));
  bus.serve(identity.bindDevice, (request) => stack.bus.call(identity.bindDevice, request));
  bus.serve(commit.latestSequence, (request) => stack.bus.call(commit.latestSequence, request));
  const sync = await startSyncService({
    db,
    bus,
    events: options.events ?? stack.events,
    logger,
    catchUpMs: options.catchUpMs ?? 30_000,
    cursorSecret: stack.environment.LODE_CURSOR_SECRET ?? 's'.repeat(32),
    consumerName: options.consumer,
  });
  const { app } = createGatewayApp({
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
      await db.close();
    },
  };
}
