import type { Bus, EventStream } from '@lode/bus';
import { Database } from '@lode/db';
import { OutboxRelay } from '@lode/outbox';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';
import type { RunningService } from './definition.ts';
import type { ServiceName } from './names.ts';
import { SERVICES, type RunningOf } from './registry.ts';
import { configure } from './settings.ts';

export interface InProcessOptions {
  /** One Postgres for every schema; each service gets a pool bound to its own. */
  connectionString: string;
  bus: Bus;
  /** The bus a service serves and calls on, where it is not `bus` (a test's fault injector, say). */
  busOf?: (service: ServiceName) => Bus;
  events: EventStream;
  storage: BlobStorage;
  logger: Logger;
  /** Where the services read their settings: the process's environment, or a test's values. */
  environment: Record<string, string | undefined>;
  /** Which services, in registry order; all of them unless given. */
  only?: readonly ServiceName[];
  /** Connections in each service's pool. */
  poolSize?: number;
}

export interface InProcessServices {
  /** A started service, as its start function returned it. */
  get<N extends ServiceName>(name: N): RunningOf<N>;
  /** The outbox relays of the started services that have one. */
  relays(): OutboxRelay[];
  /** Resolves when every service's database answers. */
  ping(): Promise<void>;
  /** Stops every service's own work (consumers, relays, timers); the bus, the events and the pools stay open. */
  stop(): Promise<void>;
  /** Closes the pools, once nothing runs on them any more. */
  closeDatabases(): Promise<void>;
}

/**
 * Starts services of the registry inside this process, each on a pool of its own schema, sharing
 * the process's bus, event stream and storage: the embedded process and the in-process test stacks.
 */
export async function startInProcess(options: InProcessOptions): Promise<InProcessServices> {
  const configured = configure(
    SERVICES.filter((service) => !options.only || options.only.includes(service.name)),
    options.environment,
  );
  const databases: Database[] = [];
  const running = new Map<string, RunningService>();
  // At once: each service's stop waits out its own consumers' pulls and in-flight work, which
  // depend on no other service's stop (the bus they call each other on stays open).
  const stop = async () => {
    await Promise.all([...running.values()].map((service) => service.stop()));
  };
  const closeDatabases = async () => {
    await Promise.all(databases.map((db) => db.close()));
  };
  try {
    for (const service of configured) {
      const db = new Database({ connectionString: options.connectionString, schema: service.schema, max: options.poolSize ?? 5 });
      databases.push(db);
      const bus = options.busOf?.(service.name) ?? options.bus;
      running.set(service.name, await service.start({ db, bus, events: options.events, storage: options.storage, logger: options.logger }));
    }
  } catch (error) {
    // What did start must not outlive the failure: a test run would leak its consumers and pools.
    await stop();
    await closeDatabases();
    throw error;
  }
  return {
    get<N extends ServiceName>(name: N) {
      const service = running.get(name);
      if (!service) throw new Error(`${name} was not started in this process`);
      // The map holds what each definition's start returned, under that definition's name.
      return service as RunningOf<N>;
    },
    relays: () => [...running.values()].flatMap((service) => ('relay' in service && service.relay instanceof OutboxRelay ? [service.relay] : [])),
    ping: async () => {
      await Promise.all(databases.map((db) => db.ping()));
    },
    stop,
    closeDatabases,
  };
}
