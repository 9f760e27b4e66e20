import type { z } from 'zod';
import type { Bus, EventStream } from '@lode/bus';
import type { Database, Migrations } from '@lode/db';
import type { BlobStorage } from '@lode/storage';
import type { Logger } from '@lode/telemetry';

/** What a service runs on when it starts inside a process that hosts it, alone or beside others. */
export interface ServiceRuntime {
  /** A pool bound to the service's own schema. */
  db: Database;
  bus: Bus;
  events: EventStream;
  /**
   * The blob storage of a process hosting several services, shared by them. A service that signs or
   * checks objects opens the one its own settings name when it runs alone and is handed none.
   */
  storage?: BlobStorage;
  logger: Logger;
}

export interface RunningService {
  /** Stops the service's own background work (consumers, relays, timers), letting what runs finish. */
  stop(): Promise<void>;
}

type SettingsShape = Record<string, z.ZodType>;
export type SettingsOf<S extends SettingsShape> = z.output<z.ZodObject<S>>;

/** One service of the system: everything a process that hosts it, or migrates its schema, needs to know. */
export interface ServiceDefinition<N extends string = string, S extends SettingsShape = SettingsShape, R extends RunningService = RunningService> {
  name: N;
  /** The one Postgres schema it owns. */
  schema: string;
  migrations: Migrations;
  /** Its own environment settings, beyond what every service process reads (libs/runtime serviceProcessSettings). */
  settings: S;
  start(runtime: ServiceRuntime, config: SettingsOf<S>): Promise<R>;
}

export function defineService<N extends string, S extends SettingsShape, R extends RunningService>(
  definition: ServiceDefinition<N, S, R>,
): ServiceDefinition<N, S, R> {
  return definition;
}
