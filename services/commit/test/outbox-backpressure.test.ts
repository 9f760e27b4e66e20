import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineEvent } from '@lode/contracts';
import { LocalEvents } from '@lode/bus';
import { Database, migrate } from '@lode/db';
import { OutboxRelay, writeOutbox } from '@lode/outbox';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { COMMIT_SCHEMA, commitMigrations } from '@lode/commit';

const logger = createLogger('test', 'silent');
const padded = defineEvent(`outboxtest.bp_${randomUUID().slice(0, 8)}`, z.object({ n: z.number(), pad: z.string() }));
/** Two events a batch, so the relay asks the stream whether it is ready every two events. */
const relayOptions = { pollMs: 60_000, retentionMs: 3_600_000, batchSize: 2 };
const EVENT_BYTES = 10_000;
/** Three events' worth: the relay may run this far ahead of the consumer, plus the batch it read before it saw so. */
const BACKLOG_BYTES = 3 * EVENT_BYTES;
const GUARD_MS = 20_000;

describe('the outbox relay into the in-process stream', () => {
  let database: TestDatabase;
  let db: Database;
  let events: LocalEvents;
  let gate: PromiseWithResolvers<void>;
  const handled: number[] = [];

  const published = async () => {
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL');
    return rows[0].n;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: COMMIT_SCHEMA });
    await migrate(db, commitMigrations);
  });
  beforeEach(async () => {
    await db.query('DELETE FROM outbox');
    handled.length = 0;
    gate = Promise.withResolvers<void>();
    events = new LocalEvents(logger, { backlogBytes: BACKLOG_BYTES });
    await events.consume('slow', padded, async ({ n }) => {
      await gate.promise;
      handled.push(n);
    });
    await db.transaction((tx) =>
      writeOutbox(
        tx,
        Array.from({ length: 20 }, (_, n) => ({ subject: padded.subject, id: `bp-${randomUUID()}`, data: { n, pad: 'x'.repeat(EVENT_BYTES) } })),
      ),
    );
  });
  afterEach(async () => {
    gate.resolve();
    await events.close();
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('publishes no further ahead of a slow consumer than the stream allows, and the rest as it catches up', async () => {
    const relay = new OutboxRelay(db, events, logger, relayOptions);
    let total: number | undefined;
    const run = relay.runOnce().then((n) => (total = n));
    await vi.waitFor(async () => expect(await published()).toBeGreaterThan(0), { timeout: GUARD_MS });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await published()).toBeLessThanOrEqual(BACKLOG_BYTES / EVENT_BYTES + relayOptions.batchSize);
    expect(total).toBeUndefined();

    gate.resolve();
    await run;
    expect(total).toBe(20);
    await vi.waitFor(() => expect(handled).toHaveLength(20), { timeout: GUARD_MS });
    expect(handled).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });

  it('stops while waiting for the consumer, leaving the rest in the outbox', async () => {
    const relay = new OutboxRelay(db, events, logger, relayOptions);
    const run = relay.runOnce();
    await vi.waitFor(async () => expect(await published()).toBeGreaterThan(0), { timeout: GUARD_MS });
    await relay.stop();
    const total = await run;
    expect(total).toBe(await published());
    expect(total).toBeLessThan(20);
  });
});
