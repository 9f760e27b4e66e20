import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent } from '@lode/contracts';
import { LocalBus, LocalEvents } from '@lode/bus';
import { Database } from '@lode/db';
import { writeOutbox } from '@lode/outbox';
import { createTestDatabase, type TestDatabase } from '@lode/testkit/database';
import { testLogger } from '@lode/testkit/test-logs';
import { LOCK_SCHEMA, startLockService, type RunningLockService } from '../src/index.ts';
import { until } from './helpers.ts';

const logger = testLogger('test');
const probe = defineEvent(`locktest.probe_${randomUUID().slice(0, 8)}`, z.object({ n: z.number() }));

describe("the lock service's outbox", () => {
  let database: TestDatabase;
  let db: Database;
  let bus: LocalBus;
  let events: LocalEvents;
  let lock: RunningLockService;
  const received: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: LOCK_SCHEMA, max: 2 });
    bus = new LocalBus(logger);
    events = new LocalEvents(logger);
    // Only a kick publishes within the test: the poll would take a minute.
    const outbox = { relay: true, pollMs: 60_000, retentionMs: 3_600_000 };
    lock = await startLockService({ db, bus, events, logger, cursorSecret: 'c'.repeat(40), outbox });
    await events.consume('lock-outbox-test', probe, async ({ n }) => {
      received.push(n);
    });
  });
  afterAll(async () => {
    await lock?.stop();
    await bus?.close();
    await events?.close();
    await db?.close();
    await database?.drop();
  });

  it('is in the locks schema, and what a transaction writes there goes out on the service’s stream, in order', async () => {
    await db.transaction((tx) =>
      writeOutbox(tx, [
        { subject: probe.subject, id: 'lock-probe-1', data: { n: 1 } },
        { subject: probe.subject, id: 'lock-probe-2', data: { n: 2 } },
      ]),
    );
    lock.relay.kick();
    await until(() => received.length === 2);
    expect(received).toEqual([1, 2]);
    // Marked published once the relay's transaction commits, just after the stream took them.
    const unpublished = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows[0].n;
    await until(async () => (await unpublished()) === 0);
  });
});
