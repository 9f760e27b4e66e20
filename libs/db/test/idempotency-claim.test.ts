import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus } from '@lode/bus';
import { pingContract } from '@lode/contracts';
import { isAppError } from '@lode/errors';
import { createLogger } from '@lode/telemetry';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { Database, whileIdempotencyKeyClaimed } from '../src/index.ts';

const held = pingContract('held');
const scope = { projectId: '00000000-0000-4000-8000-000000000001', keyId: '00000000-0000-4000-8000-000000000002', key: 'restore-1' };

/**
 * A restore holds its idempotency key across calls to other services that may take long: the claim
 * must outlast the pool's idle-in-transaction limit and the short deadline of a bus call inside a
 * transaction (timeouts.ts), so it is no transaction.
 */
describe('an idempotency key claimed across slow work', () => {
  let database: TestDatabase;
  let db: Database;
  let admin: Database;
  const bus = new LocalBus(createLogger('test', 'silent'));
  const waiting: (() => void)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Limits of 300 ms: a transaction idle longer is ended, a bus call inside one waits 100 ms.
    db = new Database({ connectionString: database.url, schema: 'public', max: 3, timeouts: { statementTimeoutMs: 300, idleInTransactionTimeoutMs: 300 } });
    admin = new Database({ connectionString: database.url, schema: 'public', max: 1 });
    bus.serve(held, () => new Promise((resolve) => waiting.push(() => resolve({ service: 'held', ok: true }))));
  });
  afterAll(async () => {
    waiting.splice(0).forEach((answer) => answer());
    await bus.close();
    await Promise.all([db?.close(), admin?.close()]);
    await database?.drop();
  });

  it('keeps the claim while the work waits past both limits, refuses a duplicate meanwhile, and frees the key after', async () => {
    const first = whileIdempotencyKeyClaimed(db, 'lode.test', scope, () => bus.call(held, {}, { timeoutMs: 60_000 }));
    await until(() => waiting.length === 1);
    const duplicate = await whileIdempotencyKeyClaimed(db, 'lode.test', scope, async () => 'ran').catch((error: unknown) =>
      isAppError(error) ? error.code : error,
    );
    expect(duplicate).toBe('idempotency_in_progress');
    // A transaction begun after the claim, idle past the limit, is ended: the claim has outlasted it.
    await db
      .transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await until(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0].pid])).rows.length === 0);
      })
      .catch(() => undefined);
    waiting.splice(0).forEach((answer) => answer());
    expect(await first).toEqual({ service: 'held', ok: true });
    expect(await whileIdempotencyKeyClaimed(db, 'lode.test', scope, async () => 'ran again')).toBe('ran again');
  }, 30_000);
});

/** Polls; the deadline only guards against a hang. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('never happened');
    await sleep(20);
  }
}
