import { errors } from '@lode/errors';
import type { Contract, ReplyOf, RequestOf } from '@lode/contracts';
import { connectNats, JetStreamEvents, LocalBus, LocalEvents, NatsBus, type Bus, type CallOptions, type EventStream, type Handler } from '@lode/bus';
import { closeServer, listen } from '@lode/runtime';
import { createGatewayApp, MemoryWriteLimiter, PROJECT_SERVICES } from '@lode/gateway';
import { startInProcess } from '@lode/system';
import { ApiClient, freePort, TEST_NATS_URL, testLogger, uniqueName, type SeededProject } from '@lode/testkit';
import type { TestStack } from '@lode/system/testing';

/**
 * What a call from the restore service meets: `down`, the error both buses raise when no instance of
 * the service answers (before the service sees the request); `reply_lost`, the service does the work
 * but the caller gives up waiting, as after a network cut or a crash of the caller.
 */
export type Fault = 'down' | 'reply_lost';

/** The restore service's bus client, with faults injected per RPC; what it serves is untouched. */
class FaultInjectingBus implements Bus {
  readonly faults = new Map<string, Fault>();
  readonly #inner: Bus;

  constructor(inner: Bus) {
    this.#inner = inner;
  }

  serve<C extends Contract>(contract: C, handler: Handler<C>): void {
    this.#inner.serve(contract, handler);
  }

  async call<C extends Contract>(contract: C, request: RequestOf<C>, options?: CallOptions): Promise<ReplyOf<C>> {
    const fault = this.faults.get(contract.subject);
    if (fault === 'down') throw errors.serviceUnavailable(contract.service);
    const reply = await this.#inner.call(contract, request, options);
    if (fault === 'reply_lost') throw errors.timeout(contract.service);
    return reply;
  }

  async close(): Promise<void> {
    await this.#inner.close();
  }
}

export interface PartialStack {
  /** The same key and device as `project`, through this stack's gateway. */
  api(project: SeededProject): ApiClient;
  /** From now on, the restore service's calls of `contract` meet `fault`. */
  inject(contract: Contract, fault: Fault): void;
  /** Every service answers again. */
  heal(): void;
  stop(): Promise<void>;
}

/**
 * A second gateway with the identity, upload, commit, lock and restore services on a bus of its own, over
 * the same database and blobs as `stack`, so what a failed restore leaves behind is seen through
 * `stack`'s gateway, and `stack`'s relay publishes the commits made here. Only this restore service's
 * calls pass through the fault injector.
 */
export async function startPartialStack(stack: TestStack, kind: 'local' | 'nats'): Promise<PartialStack> {
  const logger = testLogger('test');
  let bus: Bus;
  let events: EventStream;
  let jetstream: JetStreamEvents | undefined;
  let nc: Awaited<ReturnType<typeof connectNats>> | undefined;
  if (kind === 'nats') {
    nc = await connectNats(TEST_NATS_URL, 'test-partial');
    const namespace = uniqueName('partial');
    bus = new NatsBus(nc, logger, { namespace });
    events = jetstream = await JetStreamEvents.connect(nc, logger, { namespace });
  } else {
    bus = new LocalBus(logger);
    events = new LocalEvents(logger);
  }
  const faulty = new FaultInjectingBus(bus);
  const services = await startInProcess({
    connectionString: stack.databaseUrl,
    bus,
    busOf: (service) => (service === 'restore' ? faulty : bus),
    events,
    storage: stack.storage,
    logger,
    // The stack's relays publish what these services write, to the stack's consumers.
    environment: { ...stack.environment, LODE_OUTBOX_RELAY: 'false' },
    only: ['identity', 'upload', 'commit', 'lock', 'restore'],
    poolSize: 3,
  });
  const limiter = new MemoryWriteLimiter();
  const port = await freePort();
  const gateway = createGatewayApp({
    bus,
    limiter,
    logger,
    adminToken: uniqueName('admin-token'),
    defaultWriteLimit: { perSecond: 10_000, burst: 10_000 },
    authCacheMs: 5000,
    bodyLimit: '16mb',
    services: PROJECT_SERVICES,
  });
  const server = await listen(gateway.app, port, '127.0.0.1');
  return {
    api: (project) => new ApiClient(`http://127.0.0.1:${port}`, project.api.headers),
    inject: (contract, fault) => faulty.faults.set(contract.subject, fault),
    heal: () => faulty.faults.clear(),
    async stop() {
      await closeServer(server);
      await services.stop();
      await bus.close();
      await events.close();
      await jetstream?.deleteStream();
      await nc?.close();
      await limiter.close();
      await services.closeDatabases();
    },
  };
}
