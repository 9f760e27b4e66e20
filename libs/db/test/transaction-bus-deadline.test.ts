import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, NatsBus, connectNats, type Bus } from '@lode/bus';
import { pingContract } from '@lode/contracts';
import { isAppError } from '@lode/errors';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, TEST_NATS_URL, uniqueName, type TestDatabase } from '@lode/testkit';
import { Database } from '../src/index.ts';

/** A service whose replies come only when the test lets them go. */
const held = pingContract('held');
const logger = createLogger('test', 'silent');

describe.each(['local', 'nats'] as const)('a bus call made inside a database transaction (%s bus)', (kind) => {
  let database: TestDatabase;
  let db: Database;
  let bus: Bus;
  let closeConnection: () => Promise<void> = async () => undefined;
  const waiting: (() => void)[] = [];
  const answerEveryone = () => waiting.splice(0).forEach((answer) => answer());

  beforeAll(async () => {
    database = await createTestDatabase();
    // Limits of 3 s give calls inside a transaction a deadline of 1 s (a third of them).
    db = new Database({ connectionString: database.url, schema: 'public', max: 2, timeouts: { statementTimeoutMs: 3000, idleInTransactionTimeoutMs: 3000 } });
    if (kind === 'nats') {
      const nc = await connectNats(TEST_NATS_URL, 'test-transaction-deadline');
      bus = new NatsBus(nc, logger, { namespace: uniqueName('txdeadline') });
      closeConnection = () => nc.close();
    } else {
      bus = new LocalBus(logger);
    }
    bus.serve(held, () => new Promise((resolve) => waiting.push(() => resolve({ service: 'held', ok: true }))));
  });
  afterAll(async () => {
    answerEveryone();
    await bus?.close();
    await closeConnection();
    await db?.close();
    await database?.drop();
  });

  it('gives up at the transaction’s deadline whatever the caller asked, while a call outside any transaction keeps waiting', async () => {
    // Asked first, outside a transaction, for far longer than the transaction's deadline.
    const outside = bus.call(held, {}, { timeoutMs: 60_000 }).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    );
    const inside = await db
      .transaction(async () => bus.call(held, {}, { timeoutMs: 60_000 }))
      .then(
        () => 'answered',
        (error: unknown) => (isAppError(error) ? error.code : error),
      );
    expect(inside).toBe('timeout');
    // The call made earlier, outside, is still waiting: only now does it get its answer.
    answerEveryone();
    expect(await outside).toEqual({ reply: { service: 'held', ok: true } });
  }, 30_000);

  it('does not limit a call that work begun inside a transaction makes after it ended', async () => {
    let ended!: () => void;
    const transactionEnded = new Promise<void>((resolve) => (ended = resolve));
    let later: Promise<unknown> | undefined;
    await db.transaction(async () => {
      // As an event delivery the transaction set off (an in-process stream), still running after COMMIT.
      later = transactionEnded
        .then(() => bus.call(held, {}, { timeoutMs: 60_000 }))
        .then(
          (reply) => ({ reply }),
          (error: unknown) => ({ error }),
        );
    });
    ended();
    const inside = await db
      .transaction(async () => bus.call(held, {}, { timeoutMs: 60_000 }))
      .catch((error: unknown) => (isAppError(error) ? error.code : error));
    expect(inside).toBe('timeout');
    // Asked before the call that timed out, with no shorter deadline, it is still waiting.
    answerEveryone();
    expect(await later).toEqual({ reply: { service: 'held', ok: true } });
  }, 30_000);
});
