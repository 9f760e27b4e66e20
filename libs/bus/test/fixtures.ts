import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { NatsConnection } from '@nats-io/transport-node';
import { defineContract, defineEvent, type EventContract } from '@lode/contracts';
import { AppError } from '@lode/errors';
import { createLogger } from '@lode/telemetry';
import { connectNats, JetStreamEvents, LocalBus, LocalEvents, NatsBus, type Bus, type EventStream, type OutgoingEvent } from '@lode/bus';

export const NATS_URL = 'nats://127.0.0.1:4222';
export const logger = createLogger('test', 'silent');

/** One namespace per test file: parallel runs on the shared server never see each other's subjects. */
export function randomNamespace(): string {
  return `bustest_${randomUUID().replaceAll('-', '')}`;
}

// ---- contracts ------------------------------------------------------------------------------

export const echoContract = defineContract(
  'bustest',
  'echo',
  z.object({ text: z.string().min(1), times: z.number().int().positive().default(1) }),
  // `via` is filled in by the caller's parse, which proves the reply went through the contract there.
  z.object({ echoed: z.string(), via: z.string().default('contract') }),
);

/** Two versions of one RPC: the server speaks v1, a newer caller expects v2's extra field. */
export const describeV1 = defineContract('bustest', 'describe', z.object({}), z.object({ name: z.string() }));
export const describeV2 = defineContract('bustest', 'describe', z.object({}), z.object({ name: z.string(), size: z.number() }));

export const failContract = defineContract('bustest', 'fail', z.object({ kind: z.enum(['versionConflict', 'notFound', 'crash']) }), z.object({}));

export const slowContract = defineContract('bustest', 'slow', z.object({ delayMs: z.number().int().min(0) }), z.object({ done: z.literal(true) }));

/** Nobody serves this one. */
export const unservedContract = defineContract('bustest', 'unserved', z.object({ blob: z.string() }), z.object({}));

export const whoContract = defineContract(
  'bustest',
  'who',
  z.object({ requestId: z.string(), padding: z.string().default('') }),
  z.object({ requestId: z.string(), servedBy: z.string() }),
);

const manifestEntry = z.object({
  fileId: z.uuid(),
  path: z.string().min(1).max(1024),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ManifestEntry = z.infer<typeof manifestEntry>;

/** Shaped like a real upload manifest, so "large" means what production will send. */
export const manifestContract = defineContract(
  'bustest',
  'manifest',
  z.object({ seed: z.string(), entries: z.array(manifestEntry), replyEntries: z.number().int().min(0) }),
  z.object({ seed: z.string(), receivedCount: z.number(), receivedDigest: z.string(), entries: z.array(manifestEntry) }),
);

/**
 * Deterministic entries, so each side can rebuild what the other should have. Paths hold multi-byte
 * characters so a chunk boundary falls inside a UTF-8 sequence somewhere.
 */
export function manifestEntries(seed: string, count: number): ManifestEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const sha256 = createHash('sha256').update(`${seed}:${i}`).digest('hex');
    const fileId = `${sha256.slice(0, 8)}-${sha256.slice(8, 12)}-4${sha256.slice(13, 16)}-a${sha256.slice(17, 20)}-${sha256.slice(20, 32)}`;
    const path = `projects/${seed}/Übersicht/日本語/characters/hero/textures/diffuse_${String(i).padStart(6, '0')}_${sha256.slice(0, 12)}.png`;
    return { fileId, path, sha256 };
  });
}

export function digestOf(entries: ManifestEntry[]): string {
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

// ---- harnesses ------------------------------------------------------------------------------

/** A server bus and a client bus; for NATS on two connections, so every call crosses the server. */
export interface BusHarness {
  readonly server: Bus;
  readonly client: Bus;
  /** Resolves once the server has registered every `serve()` so far (NATS subscribes asynchronously). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export async function openNatsBus(namespace: string, name: string): Promise<{ bus: NatsBus; nc: NatsConnection }> {
  const nc = await connectNats(NATS_URL, name);
  return { bus: new NatsBus(nc, logger, { namespace }), nc };
}

export async function natsHarness(namespace: string): Promise<BusHarness> {
  const server = await openNatsBus(namespace, 'test-server');
  const client = await openNatsBus(namespace, 'test-client');
  return {
    server: server.bus,
    client: client.bus,
    ready: () => server.nc.flush(),
    async close() {
      await server.bus.close();
      await client.bus.close();
      await Promise.all([server.nc.drain(), client.nc.drain()]);
    },
  };
}

export function localHarness(): BusHarness {
  const bus = new LocalBus(logger);
  return { server: bus, client: bus, ready: async () => {}, close: () => bus.close() };
}

// ---- events --------------------------------------------------------------------------------

const tickSchema = z.object({ n: z.number().int().min(0), note: z.string().default('') });
export type TickEvent = EventContract<typeof tickSchema>;

/** A contract of its own for each test, so tests sharing a namespace's stream never see each other's events. */
export function tickEvent(): TickEvent {
  return defineEvent(`evtest.tick_${randomUUID().slice(0, 8)}`, tickSchema);
}

export function tick(contract: TickEvent, n: number, data: unknown = { n }): OutgoingEvent {
  return { subject: contract.subject, id: `${contract.name}-${n}`, data };
}

/** Short, so retry tests take milliseconds; still long enough to tell a backoff from none. */
export const TEST_RETRY_BACKOFF = { initialMs: 50, maxMs: 200 };

export interface EventsHarness {
  readonly events: EventStream;
  /** Another process's view of the same events: a new connection over NATS, the same log embedded. */
  open(): Promise<EventStream>;
  close(): Promise<void>;
}

export async function openJetStreamEvents(namespace: string, name: string, maxAgeMs?: number): Promise<{ events: JetStreamEvents; nc: NatsConnection }> {
  const nc = await connectNats(NATS_URL, name);
  return { events: await JetStreamEvents.connect(nc, logger, { namespace, maxAgeMs, retryBackoff: TEST_RETRY_BACKOFF }), nc };
}

export async function jetStreamHarness(namespace: string): Promise<EventsHarness> {
  const opened = [await openJetStreamEvents(namespace, 'events-test')];
  return {
    events: opened[0].events,
    async open() {
      const instance = await openJetStreamEvents(namespace, `events-test-${opened.length}`);
      opened.push(instance);
      return instance.events;
    },
    async close() {
      await Promise.all(opened.map(({ events }) => events.close()));
      await Promise.all(opened.map(({ nc }) => nc.drain()));
    },
  };
}

export function localEventsHarness(): EventsHarness {
  const events = new LocalEvents(logger, { retryBackoff: TEST_RETRY_BACKOFF });
  return { events, open: async () => events, close: () => events.close() };
}

// ---- helpers --------------------------------------------------------------------------------

/** The AppError a call rejected with; fails the test if it resolved or threw anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw new Error(`expected an AppError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
