import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { createTestDatabase, type TestDatabase } from '@lode/testkit';
import { Database, migrate } from '../src/index.ts';

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('Postgres limits on every pooled connection', () => {
  let database: TestDatabase;
  let db: Database;
  let admin: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Database({ connectionString: database.url, schema: 'public', max: 2, timeouts: { statementTimeoutMs: 300, idleInTransactionTimeoutMs: 300 } });
    admin = new Database({ connectionString: database.url, schema: 'public', max: 1 });
  });
  afterAll(async () => {
    await Promise.all([db?.close(), admin?.close()]);
    await database?.drop();
  });

  it('cancels a statement past statement_timeout and answers 503 service_unavailable with a retry hint', async () => {
    const failure = await failureOf(db.query('SELECT pg_sleep(45)'));
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).toJSON()).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 1 });
  }, 30_000);

  it('ends a transaction left idle past idle_in_transaction_session_timeout: 503, and the pool recovers', async () => {
    const failure = await failureOf(
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // As a transaction waiting on something else: Postgres ends the session, whatever the wait.
        await untilBackendGone(rows[0].pid);
        await tx.query('SELECT 1');
      }),
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).toJSON()).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 1 });
    expect(await db.transaction(async (tx) => (await tx.query<{ one: number }>('SELECT 1 AS one')).rows[0].one)).toBe(1);
  });

  it('gives a pool the default limits when it is given none', async () => {
    const { rows } = await admin.query(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    expect(rows[0]).toEqual({ statement: '15s', idle: '20s' });
  });

  it('runs a migration longer than the limits, and hands the connection back with them', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'lode-slow-migration-'));
    const single = new Database({ connectionString: database.url, schema: 'slow_migration', max: 1, timeouts: { statementTimeoutMs: 200 } });
    try {
      await writeFile(path.join(directory, '0001_slow.sql'), 'SELECT pg_sleep(0.5); CREATE TABLE slow (id int);');
      expect((await migrate(single, directory)).applied).toEqual(['0001_slow.sql']);
      const { rows } = await single.query(`SELECT current_setting('statement_timeout') AS statement`);
      expect(rows[0]).toEqual({ statement: '200ms' });
    } finally {
      await single.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  /** Polls from another connection; the deadline only guards against a hang. */
  async function untilBackendGone(pid: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
      if (rows.length === 0) return;
      await sleep(50);
    }
    throw new Error(`backend ${pid} was never ended`);
  }
});
