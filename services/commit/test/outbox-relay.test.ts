import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { defineEvent } from '@lode/contracts';
import { connectNats, JetStreamEvents, LocalEvents } from '@lode/bus';
import { Database, migrate } from '@lode/db';
import { OutboxRelay, writeOutbox } from '@lode/outbox';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, TEST_NATS_URL, uniqueName, type TestDatabase } from '@lode/testkit';
import { COMMIT_SCHEMA, commitMigrations } from '@lode/commit';

const logger = createLogger('test', 'silent');
const numbered = defineEvent(`outboxtest.n_${randomUUID().slice(0, 8)}`, z.object({ n: z.number() }));
const padded = defineEvent(`outboxtest.pad_${randomUUID().slice(0, 8)}`, z.object({ n: z.number(), pad: z.string() }));
const relayOptions = { pollMs: 60_000, retentionMs: 3_600_000, batchSize: 7 };

describe('the outbox relay (commit schema, JetStream)', () => {
  let database: TestDatabase;
  let db: Database;
  let nc: NatsConnection;
  let events: JetStreamEvents;
  const received: number[] = [];

  const write = (from: number, count: number) =>
    db.transaction((tx) =>
      writeOutbox(
        tx,
        Array.from({ length: count }, (_, i) => ({ subject: numbered.subject, id: `n-${from + i}`, data: { n: from + i } })),
      ),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: COMMIT_SCHEMA });
    await migrate(db, commitMigrations);
    nc = await connectNats(TEST_NATS_URL, 'outbox-test');
    events = await JetStreamEvents.connect(nc, logger, { namespace: uniqueName('outbox') });
    await events.consume('outbox-test', numbered, async ({ n }) => {
      received.push(n);
    });
  });
  afterAll(async () => {
    await events?.close();
    await events?.deleteStream();
    await nc?.close();
    await db?.close();
    await database?.drop();
  });

  const until = async (count: number, list: readonly unknown[] = received, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (list.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  };

  it('publishes everything in order across batches, once, even with several relays at once', async () => {
    await write(0, 50);
    const relays = [1, 2, 3].map(() => new OutboxRelay(db, events, logger, relayOptions));
    const published = await Promise.all(relays.map((r) => r.runOnce()));
    // Relays that found the lock taken publish nothing; together they publish each event once.
    await Promise.all(relays.map((r) => r.runOnce()));
    expect(published.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(50);
    await until(50);
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('stores a republished event once when a relay died after publishing but before marking it', async () => {
    await write(50, 5);
    await new OutboxRelay(db, events, logger, relayOptions).runOnce();
    await db.query("UPDATE outbox SET published_at = NULL WHERE event_id LIKE 'n-5_'");
    expect(await new OutboxRelay(db, events, logger, relayOptions).runOnce()).toBe(5);
    await write(55, 1);
    await new OutboxRelay(db, events, logger, relayOptions).runOnce();
    await until(56);
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual(Array.from({ length: 56 }, (_, i) => i));
  });

  it('replays the retained events into a fresh in-process stream, in order', async () => {
    const local = new LocalEvents(logger);
    const replayed: number[] = [];
    await local.consume('replay', numbered, async ({ n }) => {
      replayed.push(n);
    });
    expect(await new OutboxRelay(db, local, logger, relayOptions).replayRetained()).toBe(56);
    const deadline = Date.now() + 5000;
    while (replayed.length < 56 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(replayed).toEqual(Array.from({ length: 56 }, (_, i) => i));
    await local.close();
  });

  it('purges published events older than the retention and nothing else', async () => {
    await db.query("UPDATE outbox SET published_at = now() - interval '2 hours' WHERE event_id IN ('n-0', 'n-1')");
    await write(56, 1);
    const relay = new OutboxRelay(db, events, logger, relayOptions);
    expect(await relay.purgePublished()).toBe(2);
    const { rows } = await db.query<{ published: number; pending: number }>(
      'SELECT count(*) FILTER (WHERE published_at IS NOT NULL)::int AS published, count(*) FILTER (WHERE published_at IS NULL)::int AS pending FROM outbox',
    );
    expect(rows[0]).toEqual({ published: 54, pending: 1 });
  });

  /** Events of about `bytes` of payload each, numbered from `from`. */
  const writePadded = (from: number, sizes: readonly number[]) =>
    db.transaction((tx) =>
      writeOutbox(
        tx,
        sizes.map((bytes, i) => ({ subject: padded.subject, id: `pad-${from + i}`, data: { n: from + i, pad: 'x'.repeat(bytes) } })),
      ),
    );

  it('reads a batch of at most batchBytes of payload, one event at least however large, and the rest in later batches', async () => {
    // 30 KB events against a 100 KB batch: three a batch; the 150 KB one goes alone.
    await writePadded(0, [30_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000, 150_000, 30_000]);
    const stream = new LocalEvents(logger);
    // A batch's rows are marked published when it ends: while one is published, the others seen
    // published are those of the batches before.
    const publishedBefore: number[] = [];
    const publish = stream.publish.bind(stream);
    vi.spyOn(stream, 'publish').mockImplementation(async (event) => {
      if (event.subject === padded.subject) {
        const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL AND event_id LIKE 'pad-%'");
        publishedBefore.push(rows[0].n);
      }
      await publish(event);
    });
    const relay = new OutboxRelay(db, stream, logger, { ...relayOptions, batchSize: 50, batchBytes: 100_000 });
    expect(await relay.runOnce()).toBeGreaterThanOrEqual(9);
    expect(publishedBefore).toEqual([0, 0, 0, 3, 3, 3, 6, 7, 8]);
    await stream.close();
  });

  it('replays the retained events a batch at a time: no read holds more than batchBytes of payload (or one event)', async () => {
    const stream = new LocalEvents(logger);
    const replayed: number[] = [];
    await stream.consume('replay-pages', padded, async ({ n }) => {
      replayed.push(n);
    });
    const reads = vi.spyOn(db, 'query');
    const total = await new OutboxRelay(db, stream, logger, { ...relayOptions, batchSize: 50, batchBytes: 100_000 }).replayRetained();
    const results = await Promise.all(reads.mock.results.map((r) => r.value as Promise<{ rows: { payload?: string }[] }>));
    reads.mockRestore();
    expect(results.length).toBeGreaterThan(2);
    for (const { rows } of results) {
      const bytes = rows.reduce((sum, row) => sum + (row.payload?.length ?? 0), 0);
      expect(rows.length === 1 || bytes <= 100_000, `a read of ${rows.length} events, ${bytes} bytes`).toBe(true);
    }
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL');
    expect(total).toBe(rows[0].n);
    await until(9, replayed, 5000);
    expect(replayed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await stream.close();
  });
});
