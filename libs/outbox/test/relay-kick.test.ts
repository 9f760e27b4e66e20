import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineEvent } from '@lode/contracts';
import { LocalEvents } from '@lode/bus';
import { Database, migrate } from '@lode/db';
import { createTestDatabase, type TestDatabase } from '@lode/testkit/database';
import { testLogger } from '@lode/testkit/test-logs';
import { OutboxRelay, outboxMigrations, writeOutbox } from '../src/index.ts';

const logger = testLogger('test');
const probe = defineEvent(`outboxtest.kick_${randomUUID().slice(0, 8)}`, z.object({ n: z.number() }));

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await delay(5);
  }
}

describe('a kicked outbox relay', () => {
  let database: TestDatabase;
  let db: Database;
  let stream: LocalEvents;
  let relay: OutboxRelay;
  const received: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: 'outboxtest', max: 2 });
    await migrate(db, outboxMigrations.directory);
    stream = new LocalEvents(logger);
    await stream.consume('kick-test', probe, async ({ n }) => {
      received.push(n);
    });
    // Only kicks publish within the test: the poll would take a minute.
    relay = new OutboxRelay(db, stream, logger, { pollMs: 60_000, retentionMs: 3_600_000 });
    relay.start();
  });
  afterAll(async () => {
    await relay?.stop();
    await stream?.close();
    await db?.close();
    await database?.drop();
  });

  const write = (n: number) => db.transaction((tx) => writeOutbox(tx, [{ subject: probe.subject, id: `kick-${n}`, data: { n } }]));

  it('publishes what was kicked during a run in one run after it, in order', async () => {
    const runs = vi.spyOn(relay, 'runOnce');
    const gate = Promise.withResolvers<void>();
    const publish = stream.publish.bind(stream);
    const publishing = vi.spyOn(stream, 'publish').mockImplementation(async (event) => {
      if (publishing.mock.calls.length === 1) await gate.promise;
      await publish(event);
    });
    await write(1);
    relay.kick();
    await until(() => publishing.mock.calls.length === 1);
    // The first run holds event 1 and read nothing else: these two wait for it, and then go together.
    await write(2);
    relay.kick();
    await write(3);
    relay.kick();
    gate.resolve();
    await until(() => received.length === 3);
    expect(received).toEqual([1, 2, 3]);
    expect(runs).toHaveBeenCalledTimes(2);
    publishing.mockRestore();
    runs.mockRestore();
  });

  it('publishes what is kicked right after a run, once its short wait is over', async () => {
    await write(4);
    relay.kick();
    await write(5);
    relay.kick();
    await until(() => received.length === 5);
    expect(received).toEqual([1, 2, 3, 4, 5]);
  });
});
